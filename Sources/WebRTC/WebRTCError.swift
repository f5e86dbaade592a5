/// A media-plane failure that ends a PeerConnection, with the protocol's
/// code (PROTOCOL.md section 4): 53401 and 53403 SDP the server cannot
/// create or apply, 53404 no supported codec, 53405 ICE failed or consent
/// expired (RFC 7675: 30 s without a valid check), 53407 DTLS failed or the certificate does not
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

    /// 53403 ServerRemoteDescFailed: the server cannot apply the client's
    /// description (unparsable, hostile, or contradicting itself or the
    /// offer it answers). Twilio names codes by who fails to apply what:
    /// 53402 is a client failing to apply the server's description.
    public static func serverRemoteDescFailed(_ message: String) -> WebRTCError {
        WebRTCError(code: 53403, message: message)
    }

    /// 53401 ServerLocalDescFailed: the server cannot create its own offer
    /// or answer, or set up its side of the connection.
    public static func serverLocalDescFailed(_ message: String) -> WebRTCError {
        WebRTCError(code: 53401, message: message)
    }

    /// 53404 NoSupportedCodec: an m-line a track needs has neither Opus nor VP8.
    public static func noSupportedCodec(_ message: String) -> WebRTCError {
        WebRTCError(code: 53404, message: message)
    }

    public var description: String { "\(code): \(message)" }
}
