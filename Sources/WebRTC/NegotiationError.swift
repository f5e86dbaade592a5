/// Why an offer or answer cannot be used: 53402 ClientRemoteDescFailed for a
/// client SDP that cannot be used, 53404 NoSupportedCodec when an m-line
/// that a track needs carries neither Opus nor VP8 (PROTOCOL.md section 4).
/// The same error as the transport's: one type, with the negotiation's name
/// where it reads better.
public typealias NegotiationError = WebRTCError
