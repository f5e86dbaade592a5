/// Why an offer or answer cannot be used: 53403 ServerRemoteDescFailed for a
/// client SDP that the server cannot apply, 53401 ServerLocalDescFailed for
/// an offer the server cannot create, 53404 NoSupportedCodec when an m-line
/// that a track needs carries neither Opus nor VP8 (PROTOCOL.md section 4).
/// The same error as the transport's: one type, with the negotiation's name
/// where it reads better.
public typealias NegotiationError = WebRTCError
