import Foundation
import Rooms

/// One status callback (PROTOCOL.md section 6, "Status callbacks"): what
/// happened in a room, with Twilio's parameter names. `SequenceNumber` is
/// not here: ``WebhookOutbox`` numbers a room's events from 0 in the order
/// they are enqueued.
public struct WebhookEvent: Sendable, Hashable {
    /// `StatusCallbackEvent`: the domain's list of events.
    public typealias Kind = StatusCallbackEvent

    public var kind: Kind
    public var roomSid: String
    public var roomName: String
    public var roomStatus: RoomStatus
    /// Seconds; sent with `room-ended`.
    public var roomDuration: Int?
    public var participantSid: String?
    public var participantIdentity: String?
    public var participantStatus: ParticipantStatus?
    /// Seconds; sent with `participant-disconnected`.
    public var participantDuration: Int?
    public var trackSid: String?
    public var trackName: String?
    public var trackKind: TrackKind?
    /// When it happened; sent as RFC 2822 (`Timestamp`).
    public var timestamp: Date

    public init(
        kind: Kind, roomSid: String, roomName: String, roomStatus: RoomStatus,
        roomDuration: Int? = nil, participantSid: String? = nil, participantIdentity: String? = nil,
        participantStatus: ParticipantStatus? = nil, participantDuration: Int? = nil,
        trackSid: String? = nil, trackName: String? = nil, trackKind: TrackKind? = nil,
        timestamp: Date
    ) {
        self.kind = kind
        self.roomSid = roomSid
        self.roomName = roomName
        self.roomStatus = roomStatus
        self.roomDuration = roomDuration
        self.participantSid = participantSid
        self.participantIdentity = participantIdentity
        self.participantStatus = participantStatus
        self.participantDuration = participantDuration
        self.trackSid = trackSid
        self.trackName = trackName
        self.trackKind = trackKind
        self.timestamp = timestamp
    }

    /// `room-created` or `room-ended` from the room's record (its status
    /// and, once ended, its duration).
    public static func room(_ kind: Kind, _ room: RoomRecord, at timestamp: Date) -> WebhookEvent {
        WebhookEvent(
            kind: kind, roomSid: room.sid.rawValue, roomName: room.uniqueName, roomStatus: room.status,
            roomDuration: room.duration, timestamp: timestamp)
    }

    /// `participant-connected` or `participant-disconnected` from the records.
    public static func participant(
        _ kind: Kind, _ participant: ParticipantRecord, in room: RoomRecord, at timestamp: Date
    ) -> WebhookEvent {
        WebhookEvent(
            kind: kind, roomSid: room.sid.rawValue, roomName: room.uniqueName, roomStatus: room.status,
            participantSid: participant.sid.rawValue, participantIdentity: participant.identity,
            participantStatus: participant.status, participantDuration: participant.duration,
            timestamp: timestamp)
    }

    /// `track-added`, `track-removed`, `track-enabled` or `track-disabled`.
    public static func track(
        _ kind: Kind, _ track: PublishedTrackRecord, of participant: ParticipantRecord,
        in room: RoomRecord, at timestamp: Date
    ) -> WebhookEvent {
        WebhookEvent(
            kind: kind, roomSid: room.sid.rawValue, roomName: room.uniqueName, roomStatus: room.status,
            participantSid: participant.sid.rawValue, participantIdentity: participant.identity,
            participantStatus: participant.status, trackSid: track.sid.rawValue, trackName: track.name,
            trackKind: track.kind, timestamp: timestamp)
    }

    /// The form parameters, sorted by name; absent ones are omitted.
    public func parameters(sequenceNumber: Int) -> [(name: String, value: String)] {
        var parameters: [(name: String, value: String)] = [
            ("StatusCallbackEvent", kind.rawValue),
            ("RoomSid", roomSid),
            ("RoomName", roomName),
            ("RoomStatus", roomStatus.rawValue),
            ("SequenceNumber", String(sequenceNumber)),
            ("Timestamp", RFC2822Date.string(from: timestamp)),
        ]
        func add(_ name: String, _ value: String?) {
            if let value { parameters.append((name, value)) }
        }
        add("RoomDuration", roomDuration.map(String.init))
        add("ParticipantSid", participantSid)
        add("ParticipantIdentity", participantIdentity)
        add("ParticipantStatus", participantStatus?.rawValue)
        add("ParticipantDuration", participantDuration.map(String.init))
        add("TrackSid", trackSid)
        add("TrackName", trackName)
        add("TrackKind", trackKind?.rawValue)
        return parameters.sorted { $0.name < $1.name }
    }
}
