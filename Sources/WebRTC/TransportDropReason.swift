/// Why a PeerTransport dropped a received datagram or refused to protect
/// one; each has a counter in `TransportCounters` (bad input is dropped and
/// counted, never thrown: STYLE.md habit 3).
public enum TransportDropReason: CaseIterable, Sendable, Hashable {
    /// Not STUN, DTLS, RTP or RTCP by its first byte (RFC 7983), a STUN
    /// message that does not parse or whose FINGERPRINT is wrong, a STUN
    /// class ICE does not use, or an SRTP packet libsrtp cannot parse.
    case malformed
    /// A Binding request (or response) whose MESSAGE-INTEGRITY does not verify.
    case stunIntegrity
    /// A Binding request whose USERNAME is not "localUfrag:remoteUfrag", or
    /// a response to no check of ours.
    case stunUnknownUsername
    /// DTLS, SRTP or SRTCP from an address no authenticated check came from.
    case unvalidatedAddress
    /// SRTP before the DTLS handshake finished, or after the transport
    /// failed or closed; also a protect call then.
    case notConnected
    /// SRTP/SRTCP whose authentication tag does not verify (libsrtp error 7).
    case srtpAuth
    /// SRTP/SRTCP already received or older than the replay window (errors 9, 10).
    case replay
    /// DTLS the endpoint refused (finished or closed).
    case dtls
}
