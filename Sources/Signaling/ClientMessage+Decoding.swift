import Rooms

/// Each request's fields through Codable: the structs' synthesized
/// conformances read `null` as absent for optional fields and as missing
/// for required ones; unknown fields are ignored.
extension ClientMessage {
    private enum Field: String, CodingKey {
        case trackSid, enabled, rules, sdp, priority, renderDimensions
    }

    /// The message of `type` read from the frame's object; `nil` for a type
    /// this server does not know.
    init?(type: String, from decoder: any Decoder) throws {
        switch type {
        case "join":
            self = .join(try Join(from: decoder))
        case "publish":
            self = .publish(try Publish(from: decoder))
        case "unpublish":
            let fields = try decoder.container(keyedBy: Field.self)
            self = .unpublish(trackSid: try fields.decode(String.self, forKey: .trackSid))
        case "setTrackEnabled":
            let fields = try decoder.container(keyedBy: Field.self)
            self = .setTrackEnabled(
                trackSid: try fields.decode(String.self, forKey: .trackSid),
                enabled: try fields.decode(Bool.self, forKey: .enabled))
        case "interruption":
            self = .interruption(try Interruption(from: decoder))
        case "updateSubscriptions":
            let fields = try decoder.container(keyedBy: Field.self)
            self = .updateSubscriptions(rules: try fields.decode([SubscribeRule].self, forKey: .rules))
        case "restartIce":
            self = .restartIce
        case "subscribeAnswer":
            let fields = try decoder.container(keyedBy: Field.self)
            self = .subscribeAnswer(sdp: try fields.decode(String.self, forKey: .sdp))
        case "sendMessage":
            self = .sendMessage(try SendMessage(from: decoder))
        case "ping":
            self = .ping
        case "leave":
            self = .leave
        case "setTrackPriority":
            let fields = try decoder.container(keyedBy: Field.self)
            self = .setTrackPriority(
                trackSid: try fields.decode(String.self, forKey: .trackSid),
                priority: try fields.decodeIfPresent(TrackPriority.self, forKey: .priority))
        case "setContentPreferences":
            let fields = try decoder.container(keyedBy: Field.self)
            self = .setContentPreferences(
                trackSid: try fields.decode(String.self, forKey: .trackSid),
                renderDimensions: try fields.decodeIfPresent(RenderSize.self, forKey: .renderDimensions))
        case "switchOffTrack", "switchOnTrack":
            let fields = try decoder.container(keyedBy: Field.self)
            let trackSid = try fields.decode(String.self, forKey: .trackSid)
            self = type == "switchOffTrack" ? .switchOffTrack(trackSid: trackSid) : .switchOnTrack(trackSid: trackSid)
        case "candidate":
            // Its fields (candidate, sdpMid, ...) are not read: ICE-lite needs none.
            self = .candidate
        default:
            return nil
        }
    }
}
