import Rooms

/// `POST /v1/Rooms` as read and checked from its form: what the node that
/// owns the unique name needs to create the room, here or relayed there
/// (`RoomAction.createRoom`).
struct RoomCreation: Codable, Sendable, Equatable {
    var uniqueName: String?
    var maxParticipants: Int?
    var emptyRoomTimeout: Int?
    var unusedRoomTimeout: Int?
    var statusCallback: String?
    var statusCallbackMethod: StatusCallbackMethod?
}
