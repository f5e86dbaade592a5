/// Why an offer or answer cannot be used, with the protocol's code
/// (PROTOCOL.md section 4): 53402 ClientRemoteDescFailed for a client SDP
/// that cannot be used, 53404 NoSupportedCodec when an m-line that a track
/// needs carries neither Opus nor VP8. Signaling sends `code` and `message`
/// in its `error` reply unchanged.
///
/// Named apart from the transport's `WebRTCError` (same shape) so the two
/// parts merge without a clash; the lead may fold one into the other.
public struct NegotiationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Int
    public var message: String

    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    /// 53402: the client's description cannot be used.
    public static func clientRemoteDescFailed(_ message: String) -> NegotiationError {
        NegotiationError(code: 53402, message: message)
    }

    /// 53404: an m-line a track needs has neither Opus nor VP8.
    public static func noSupportedCodec(_ message: String) -> NegotiationError {
        NegotiationError(code: 53404, message: message)
    }

    public var description: String { "\(code): \(message)" }
}
