import Foundation

/// A participant's subscribe rules for REST `SubscribeRules`.
public struct SubscribeRulesRecord: Hashable, Sendable {
    public var participantSID: ParticipantSID
    public var roomSID: RoomSID
    public var rules: [SubscribeRule]
    public var dateCreated: Date
    public var dateUpdated: Date
}
