import Foundation

/// The JSON codec of the signaling WebSocket (PROTOCOL.md sections 1 and 3):
/// client frames in, server frames out. Pure functions; the session actor
/// owns the socket.
public enum SignalingCodec {
    /// Client frames are capped at 64 KiB (PROTOCOL.md section 1): a publish
    /// offer for 16 tracks is about 10 KB, a message at most 10,240 bytes of
    /// content plus escaping.
    public static let maxFrameBytes = 65_536

    /// Decodes one client text frame. Never throws and never traps: every
    /// input maps to a request, an ignored unknown type, or a 53003 verdict.
    public static func decode(_ frame: String) -> DecodedFrame {
        let size = frame.utf8.count
        guard size <= maxFrameBytes else {
            // Not parsed at all, so no id to echo: parsing is what the cap protects.
            return .invalid(id: nil, .invalidMessage("frame of \(size) bytes is over the \(maxFrameBytes)-byte limit"))
        }
        guard let value = JSONValue.parse(frame) else {
            return .invalid(id: nil, .invalidMessage("not JSON"))
        }
        guard case .object = value else {
            return .invalid(id: nil, .invalidMessage("not a JSON object"))
        }
        let fields = JSONFields(value)
        let id: String?
        do { id = try fields.optionalString("id") } catch { return .invalid(id: nil, error) }
        let type: String
        do { type = try fields.string("type") } catch { return .invalid(id: id, error) }
        do {
            guard let message = try decodeMessage(type: type, fields) else {
                guard let id else { return .ignored(type: type) }
                return .invalid(id: id, .invalidMessage("unknown type '\(type)'"))
            }
            return .request(message, id: id)
        } catch {
            return .invalid(id: id, error)
        }
    }

    /// `nil` for an unknown type.
    private static func decodeMessage(type: String, _ f: JSONFields) throws(SignalingError) -> ClientMessage? {
        switch type {
        case "join":
            return .join(
                ClientMessage.Join(
                    room: try f.optionalString("room"),
                    name: try f.optionalString("name"),
                    resume: try f.optionalString("resume"),
                    rules: try f.optionalObjects("rules").map(decodeRules)))
        case "publish":
            var tracks: [ClientMessage.TrackDescription] = []
            for t in try f.objects("tracks") {
                tracks.append(
                    ClientMessage.TrackDescription(
                        mid: try t.string("mid"), name: try t.string("name"),
                        kind: try t.enum("kind", as: SignalingTrackKind.self),
                        enabled: try t.optionalBool("enabled")))
            }
            return .publish(ClientMessage.Publish(sdp: try f.string("sdp"), tracks: tracks))
        case "unpublish":
            return .unpublish(trackSid: try f.string("trackSid"))
        case "setTrackEnabled":
            return .setTrackEnabled(trackSid: try f.string("trackSid"), enabled: try f.bool("enabled"))
        case "interruption":
            return .interruption(
                ClientMessage.Interruption(
                    kind: try f.enum("kind", as: ClientMessage.Interruption.Kind.self),
                    state: try f.enum("state", as: ClientMessage.Interruption.State.self),
                    reason: try f.optionalString("reason")))
        case "updateSubscriptions":
            return .updateSubscriptions(rules: try decodeRules(try f.objects("rules")))
        case "restartIce":
            return .restartIce
        case "subscribeAnswer":
            return .subscribeAnswer(sdp: try f.string("sdp"))
        case "sendMessage":
            return .sendMessage(
                ClientMessage.SendMessage(
                    content: try f.string("content"), contentType: try f.string("contentType"),
                    to: try f.optionalStrings("to")))
        case "ping":
            return .ping
        case "leave":
            return .leave
        case "candidate":
            // Its fields (candidate, sdpMid, ...) are not read: ICE-lite needs none.
            return .candidate
        default:
            return nil
        }
    }

    /// Subscribe rules from JSON text, with the same checks as in `join` and
    /// `updateSubscriptions`: for the REST API's `Rules` parameter (PROTOCOL.md 6).
    public static func decodeSubscribeRules(_ json: String) throws(SignalingError) -> [SignalingSubscribeRule] {
        guard json.utf8.count <= maxFrameBytes, let value = JSONValue.parse(json) else {
            throw .invalidMessage("rules are not JSON")
        }
        return try decodeRules(try JSONFields(.object([("rules", value)])).objects("rules"))
    }

    private static func decodeRules(_ items: [JSONFields]) throws(SignalingError) -> [SignalingSubscribeRule] {
        var rules: [SignalingSubscribeRule] = []
        rules.reserveCapacity(items.count)
        for r in items {
            let rule = SignalingSubscribeRule(
                type: try r.enum("type", as: SignalingSubscribeRule.RuleType.self),
                all: try r.optionalBool("all"),
                kind: try r.optionalEnum("kind", as: SignalingTrackKind.self),
                publisher: try r.optionalString("publisher"),
                track: try r.optionalString("track"))
            guard rule.hasCriterion else {
                throw .invalidMessage("rule '\(r.path.dropLast())' needs at least one of all, kind, publisher, track")
            }
            rules.append(rule)
        }
        return rules
    }

    /// The JSON text of one server frame, exactly as PROTOCOL.md writes it:
    /// `type` first, absent optionals omitted (only `dominantSpeaker` sends
    /// an explicit `null`). Server frames have no size cap.
    public static func encode(_ message: ServerMessage) -> String {
        message.json.serialized
    }
}
