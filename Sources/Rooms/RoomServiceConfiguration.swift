import Foundation

/// Limits and timers of the room logic (PROTOCOL.md sections 1, 3 and 6).
/// Every value is configurable so tests can shorten timers.
public struct RoomServiceConfiguration: Equatable, Sendable {
    /// How long a dropped participant stays `reconnecting` before removal (30 s).
    public var reconnectWindow: TimeInterval = 30
    /// Default empty-room timeout: a room that became empty and stayed so for
    /// this long is completed (5 min, Twilio's default).
    public var emptyRoomTimeout: TimeInterval = 5 * 60
    /// Default unused-room timeout: a room nobody ever joined is completed
    /// this long after creation (5 min).
    public var unusedRoomTimeout: TimeInterval = 5 * 60
    /// `join` to an unknown room name creates it; `--no-auto-create` turns it off.
    public var autoCreateRooms = true
    /// Current participants (connected + reconnecting) this node accepts in
    /// all rooms; `nil` means no limit. Over it, `join` fails with 53006.
    public var maxParticipantsPerNode: Int? = nil
    /// Highest `MaxParticipants` a REST create may ask for (`rooms.maxParticipantsLimit`).
    public var maxParticipantsLimit = 50
    /// `MaxParticipants` of rooms created without one (50, Twilio's group default).
    public var defaultMaxParticipants = 50
    /// Publications per participant (16); more fail with 53203.
    public var maxTracksPerParticipant = 16
    /// Largest message content in UTF-8 bytes (10 KB = 10,240).
    public var maxMessageBytes = 10_240
    /// Accepted messages allowed per sender in `messageRateWindow` (10).
    public var maxMessagesPerWindow = 10
    /// The rolling window of the message rate limit (60 s).
    public var messageRateWindow: TimeInterval = 60
    /// The defaults of PROTOCOL.md.
    public init() {}
}
