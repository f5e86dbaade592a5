import Rooms

/// An error to put on the wire: a code of PROTOCOL.md section 4 and the
/// message sent with it. The message defaults to the code's table message;
/// a more precise one ("field 'sdp' must be a string") helps client authors.
public struct SignalingError: Error, Sendable, Equatable {
    public var code: SignalingErrorCode
    public var message: String

    public init(_ code: SignalingErrorCode, message: String? = nil) {
        self.code = code
        self.message = message ?? code.message
    }

    /// 53003 with a reason: the codec's verdict on a frame it cannot use.
    public static func invalidMessage(_ reason: String) -> SignalingError {
        SignalingError(.signalingIncomingMessageInvalid, message: "Invalid signaling message: \(reason)")
    }

    /// The `error` frame answering request `id` with this error.
    public func errorMessage(id: String?) -> ServerMessage {
        .error(id: id, code: code, message: message)
    }

    /// The `disconnected` frame ending a joined session with this error.
    public var disconnectedMessage: ServerMessage {
        .disconnected(code: code, message: message)
    }
}

/// The codes of `error` and `disconnected` frames: the protocol's table,
/// which lives with the domain (Rooms) so that both layers read one list.
public typealias SignalingErrorCode = ProtocolErrorCode
