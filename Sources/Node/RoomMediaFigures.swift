import Foundation
import MediaIO
import Rooms

/// A room's live media figures by SID (for `GET /v1/Rooms/{RoomSid}/Stats`),
/// read on the room's media worker in one job, so every number in it is of
/// the same moment.
public struct RoomMediaFigures: Sendable, Equatable {
    public var participants: [ParticipantSID: ParticipantMediaFigures] = [:]

    public init() {}
}

/// One participant's media: its network quality, the RTT of its subscriber
/// connection, what the server receives of each track it publishes and what
/// it sends it of each track it subscribes to (tracks in SID order).
public struct ParticipantMediaFigures: Sendable, Equatable {
    /// The quality monitor's newest figures; nil before its first rating.
    public var networkQuality: ParticipantQuality?
    /// Seconds, from the subscriber's receiver reports (RFC 3550 LSR/DLSR);
    /// nil before one echoed a sender report of ours.
    public var roundTripTime: Double?
    public var published: [PublishedTrackFigures]
    public var subscribed: [SubscribedTrackFigures]
}

/// One published track as the server receives it.
public struct PublishedTrackFigures: Sendable, Equatable {
    public var track: TrackSID
    public var receiver: ReceiverFigures
}

/// One track as the server sends it to the subscribing participant.
public struct SubscribedTrackFigures: Sendable, Equatable {
    public var track: TrackSID
    /// Who published it (nil when it left meanwhile).
    public var publisher: ParticipantSID?
    public var downTrack: DownTrackFigures
}

/// A media-plane event in the rooms' SIDs, for the sessions it concerns.
public enum RoomMediaEvent: Sendable, Hashable {
    /// A participant's publisher or subscriber connection is up (ICE and DTLS-SRTP).
    case connected(participant: ParticipantSID, connection: MediaEvent.Connection)
    /// A participant's publisher or subscriber connection failed (53405, 53407).
    case failed(participant: ParticipantSID, connection: MediaEvent.Connection, code: Int, message: String)
    /// A participant's network quality changed: for everyone in the room.
    case networkQuality(room: RoomSID, participant: ParticipantSID, level: Int, warnings: [NetworkQualityWarning])
    /// The room's dominant speaker changed; nil: nobody speaks.
    case dominantSpeaker(room: RoomSID, participant: ParticipantSID?)
}
