// WebRTC: the sans-I/O transport of one PeerConnection (ICE-lite agent,
// DTLS through OpenSSL memory BIOs, SRTP through libsrtp2, negotiation).
// Filled by the media-plane issue; the module exists now so that the
// dependency direction (SFU -> WebRTC -> SDP, Packets) is fixed.
