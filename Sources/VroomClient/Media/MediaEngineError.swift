/// An error from the engine, with the protocol's code (PROTOCOL.md section 4).
struct MediaEngineError: Error, Hashable, Sendable, CustomStringConvertible {
    var code: Int
    var message: String

    /// 53402: the server's description could not be applied.
    static func remoteDescription(_ message: String) -> MediaEngineError {
        MediaEngineError(code: 53402, message: message)
    }

    /// 53400: the client's media connection could not be set up (socket, DTLS context).
    static func mediaConnection(_ message: String) -> MediaEngineError {
        MediaEngineError(code: 53400, message: message)
    }

    var description: String { "\(code): \(message)" }
}
