import Foundation

/// A participant's session as another node needs it to take the room over
/// (PROTOCOL.md section 8: "`sessionToken`s, room and participant records
/// and subscribe rules live in the database, so any node can resume any
/// session"). Emitted as `RoomEvent.session` at each join, resume (a new
/// token) and change of subscribe rules; a cluster's store keeps the
/// token's hash, never the token.
public struct SessionRecord: Hashable, Sendable {
    public var participantSID: ParticipantSID
    public var roomSID: RoomSID
    public var identity: String
    public var token: SessionToken
    public var rules: [SubscribeRule]
    public var rulesDateUpdated: Date

    public init(
        participantSID: ParticipantSID, roomSID: RoomSID, identity: String, token: SessionToken,
        rules: [SubscribeRule], rulesDateUpdated: Date
    ) {
        self.participantSID = participantSID
        self.roomSID = roomSID
        self.identity = identity
        self.token = token
        self.rules = rules
        self.rulesDateUpdated = rulesDateUpdated
    }
}
