import Foundation
import Rooms

/// The timers and limits of a signaling session (PROTOCOL.md sections 1 and
/// 3.6). Each is a flag of `vroom-server`, so tests can shorten them.
public struct SignalingSettings: Sendable {
    /// A session with no frame from the client for this long is sent
    /// `disconnected` 53002 and closed (15 s).
    public var silenceTimeout: TimeInterval = 15
    /// How often the server sends a WebSocket ping (5 s).
    public var pingInterval: TimeInterval = 5
    /// An offer unanswered for this long is sent again (10 s).
    public var offerResendInterval: TimeInterval = 10
    /// Client frames above this size get 53003 (64 KiB).
    public var maxClientFrameBytes = SignalingCodec.maxFrameBytes
    /// Server messages queued for a client that does not read; past this the
    /// client is cut off rather than allowed to hold memory or stall the room.
    /// 1024 covers a burst of a 50-person room's joins with wide margin.
    public var outboxCapacity = 1024
    /// Client frames read and not yet handled (a request waiting on the
    /// database holds those behind it); past either bound the client is cut
    /// off. A well-behaved client has a few queued at most.
    public var inboxCapacity = 256
    public var inboxByteCapacity = 4 << 20
    /// Makes `joined.iceServers` for the participant that joined (or
    /// resumed), at the time given: TURN credentials when the server has a
    /// TURN server (PROTOCOL.md section 9), else none.
    public var iceServers: @Sendable (_ participant: ParticipantSID, _ now: Date) -> [ServerMessage.IceServer] = { _, _ in [] }

    public init() {}
}
