/// A media-plane failure that ends a PeerConnection, with the protocol's
/// code (PROTOCOL.md section 4): 53400-53403 unusable SDP, 53404 no
/// supported codec, 53405 ICE failed or consent expired (RFC 7675: 30 s
/// without a valid check), 53407 DTLS failed or the certificate does not
/// match the SDP fingerprint.
///
/// Control path only: the packet path drops and counts instead of throwing.
public struct WebRTCError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Int
    public var message: String

    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    /// 53405 MediaConnectionError: ICE failed, or no valid STUN consent for 30 s.
    public static func mediaConnection(_ message: String) -> WebRTCError {
        WebRTCError(code: 53405, message: message)
    }

    /// 53407 MediaDTLSTransportFailed: DTLS failed, or the certificate does
    /// not match the SDP fingerprint.
    public static func dtlsTransport(_ message: String) -> WebRTCError {
        WebRTCError(code: 53407, message: message)
    }

    /// 53402 ClientRemoteDescFailed: the client's description cannot be used.
    public static func clientRemoteDescFailed(_ message: String) -> WebRTCError {
        WebRTCError(code: 53402, message: message)
    }

    /// 53404 NoSupportedCodec: an m-line a track needs has neither Opus nor VP8.
    public static func noSupportedCodec(_ message: String) -> WebRTCError {
        WebRTCError(code: 53404, message: message)
    }

    public var description: String { "\(code): \(message)" }
}
