/// An error of the room: the protocol's code (PROTOCOL.md section 4, the
/// names of twilio-video.js) and a message for people.
public struct VideoError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Int
    public var message: String

    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    /// 53000: the server cannot be reached (the SDK raises it).
    public static func signalingConnectionError(_ detail: String) -> VideoError {
        VideoError(code: 53000, message: "Signaling connection error: \(detail)")
    }

    /// 53001: the signaling connection dropped; raised while reconnecting,
    /// and as the final error when the reconnect window is missed.
    public static let signalingConnectionDisconnected =
        VideoError(code: 53001, message: "Signaling connection disconnected")

    /// 53405: the media connection failed (ICE or consent).
    public static func mediaConnectionError(_ detail: String) -> VideoError {
        VideoError(code: 53405, message: "Media connection failed: \(detail)")
    }

    // Codes the server sends that the SDK acts on.
    public static let signalingConnectionTimeoutCode = 53002
    public static let mediaConnectionErrorCode = 53405
    public static let mediaDTLSTransportFailedCode = 53407
}
