import Foundation

/// What a `joined` reply needs (PROTOCOL.md section 3.1).
public struct JoinResult: Hashable, Sendable {
    public var room: RoomRecord
    /// The joining participant itself.
    public var participant: ParticipantInfo
    /// Everyone else currently in the room (connected or reconnecting), in join order.
    public var participants: [ParticipantInfo]
    /// The one-time token for the next resume.
    public var sessionToken: SessionToken
    /// True for a resume (same participant SID).
    public var resumed: Bool
    /// A resume while the old socket was still considered open: Signaling
    /// closes the old socket (without `disconnected`).
    public var replacedLiveSession: Bool
    /// `reconnectWindowSeconds` of `joined`.
    public var reconnectWindow: TimeInterval
}
