import Foundation

/// A request of this client (PROTOCOL.md section 3), encoded as the JSON
/// text of one WebSocket frame.
enum ClientSignal: Sendable {
    struct PublishTrack: Sendable, Equatable {
        var mid: String
        var name: String
        var kind: TrackKind
        var enabled: Bool
    }

    case join(id: String, room: String?, resume: String?, subscribeAll: Bool)
    case publish(id: String, sdp: String, tracks: [PublishTrack])
    case subscribeAnswer(sdp: String)
    case setTrackEnabled(id: String, trackSid: String, enabled: Bool)
    case interruption(id: String, kind: String, began: Bool, reason: String?)
    case restartIce(id: String)
    case sendMessage(id: String, content: String, contentType: String, to: [String]?)
    case ping
    case leave

    var text: String {
        var object: [String: Any]
        switch self {
        case .join(let id, let room, let resume, let subscribeAll):
            object = ["type": "join", "id": id]
            if let room { object["room"] = room }
            if let resume { object["resume"] = resume }
            object["rules"] = [["type": subscribeAll ? "include" : "exclude", "all": true]]
        case .publish(let id, let sdp, let tracks):
            object = [
                "type": "publish", "id": id, "sdp": sdp,
                "tracks": tracks.map { ["mid": $0.mid, "name": $0.name, "kind": $0.kind.rawValue, "enabled": $0.enabled] },
            ]
        case .subscribeAnswer(let sdp):
            object = ["type": "subscribeAnswer", "sdp": sdp]
        case .setTrackEnabled(let id, let trackSid, let enabled):
            object = ["type": "setTrackEnabled", "id": id, "trackSid": trackSid, "enabled": enabled]
        case .interruption(let id, let kind, let began, let reason):
            object = ["type": "interruption", "id": id, "kind": kind, "state": began ? "began" : "ended"]
            if let reason, began { object["reason"] = reason }
        case .restartIce(let id):
            object = ["type": "restartIce", "id": id]
        case .sendMessage(let id, let content, let contentType, let to):
            object = ["type": "sendMessage", "id": id, "content": content, "contentType": contentType]
            if let to { object["to"] = to }
        case .ping:
            object = ["type": "ping"]
        case .leave:
            object = ["type": "leave"]
        }
        // Only strings, numbers, booleans, arrays and objects: cannot fail.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
