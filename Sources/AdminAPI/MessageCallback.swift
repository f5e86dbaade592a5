import Foundation

/// One participant message posted to a message subscription's `Callback`
/// (PROTOCOL.md section 6, `MessageSubscriptions`): a JSON POST with
/// `ContentType, Content, SequenceNumber, ParticipantSid, RoomSid,
/// Timestamp` (RFC 2822) and `Sid`. `SequenceNumber` is the message's own
/// (per sender, from 3.5), so the caller gives it.
public struct MessageCallback: Sendable, Hashable, Encodable {
    public var contentType: String
    public var content: String
    public var sequenceNumber: Int
    public var participantSid: String
    public var roomSid: String
    public var timestamp: Date
    /// The message's `ME…` SID.
    public var sid: String

    public init(
        contentType: String, content: String, sequenceNumber: Int, participantSid: String,
        roomSid: String, timestamp: Date, sid: String
    ) {
        self.contentType = contentType
        self.content = content
        self.sequenceNumber = sequenceNumber
        self.participantSid = participantSid
        self.roomSid = roomSid
        self.timestamp = timestamp
        self.sid = sid
    }

    enum CodingKeys: String, CodingKey {
        case contentType = "ContentType", content = "Content", sequenceNumber = "SequenceNumber"
        case participantSid = "ParticipantSid", roomSid = "RoomSid", timestamp = "Timestamp"
        case sid = "Sid"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(contentType, forKey: .contentType)
        try container.encode(content, forKey: .content)
        try container.encode(sequenceNumber, forKey: .sequenceNumber)
        try container.encode(participantSid, forKey: .participantSid)
        try container.encode(roomSid, forKey: .roomSid)
        try container.encode(RFC2822Date.string(from: timestamp), forKey: .timestamp)
        try container.encode(sid, forKey: .sid)
    }

    /// The exact bytes sent (and signed): keys sorted so a body is
    /// reproducible, slashes left unescaped.
    public func jsonBody() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings and ints into JSON cannot fail.
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }
}
