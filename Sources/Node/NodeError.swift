import MediaIO
import Rooms

/// A refusal of one of `Node`'s operations, with the protocol's code
/// (PROTOCOL.md section 4): the room's rules (`RoomError`) or the media
/// plane's negotiation (`MediaError`), for Signaling to put on the wire.
public struct NodeError: Error, Sendable, Equatable {
    public var code: ProtocolErrorCode
    public var message: String

    public init(_ code: ProtocolErrorCode, message: String) {
        self.code = code
        self.message = message
    }

    public init(_ error: RoomError) {
        self.init(error.protocolCode, message: error.message)
    }

    /// A media error keeps its code; one outside the table (none is) would
    /// be the server's own failure, 53401.
    public init(_ error: MediaError) {
        self.init(ProtocolErrorCode(rawValue: error.code) ?? .serverLocalDescFailed, message: error.message)
    }
}
