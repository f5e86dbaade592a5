import Foundation

/// A room in progress as the cluster's database holds it, for the node that
/// takes it over from a dead (or draining) one: `RoomService.adopt`.
public struct RoomSnapshot: Sendable {
    /// One participant who was current (connected or reconnecting) on the
    /// old node, with its current publications and subscribe rules.
    public struct Participant: Sendable {
        public var record: ParticipantRecord
        public var rules: [SubscribeRule]
        public var rulesDateUpdated: Date
        public var tracks: [PublishedTrackRecord]

        public init(record: ParticipantRecord, rules: [SubscribeRule], rulesDateUpdated: Date, tracks: [PublishedTrackRecord]) {
            self.record = record
            self.rules = rules
            self.rulesDateUpdated = rulesDateUpdated
            self.tracks = tracks
        }
    }

    public var room: RoomRecord
    /// In join order.
    public var participants: [Participant]

    public init(room: RoomRecord, participants: [Participant]) {
        self.room = room
        self.participants = participants
    }
}
