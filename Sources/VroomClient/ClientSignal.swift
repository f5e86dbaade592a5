import Foundation

/// A request of this client (PROTOCOL.md section 3), encoded as the JSON
/// text of one WebSocket frame.
enum ClientSignal: Sendable {
    struct PublishTrack: Sendable, Equatable, Encodable {
        var mid: String
        var name: String
        var kind: TrackKind
        var enabled: Bool
        /// PROTOCOL.md section 7; nil: left out (the server's default).
        var priority: TrackPriority? = nil
        /// A simulcast track's layers, lowest first; nil: left out (one layer).
        var layers: [Layer]? = nil
    }

    /// One simulcast layer of a `tracks` entry.
    struct Layer: Sendable, Equatable, Encodable {
        var rid: String
        var width: Int
        var height: Int
    }

    case join(id: String, room: String?, resume: String?, subscribeAll: Bool, bandwidthProfile: BandwidthProfileOptions? = nil)
    case publish(id: String, sdp: String, tracks: [PublishTrack])
    case subscribeAnswer(sdp: String)
    case setTrackEnabled(id: String, trackSid: String, enabled: Bool)
    case interruption(id: String, kind: String, began: Bool, reason: String?)
    case restartIce(id: String)
    case sendMessage(id: String, content: String, contentType: String, to: [String]?)
    /// nil clears this subscriber's override (sent as `null`).
    case setTrackPriority(id: String, trackSid: String, priority: TrackPriority?)
    case setContentPreferences(id: String, trackSid: String, renderDimensions: VideoDimensions)
    case switchOffTrack(id: String, trackSid: String)
    case switchOnTrack(id: String, trackSid: String)
    case ping
    case leave

    /// The frame's JSON text, keys sorted. `nil` optionals are left out.
    var text: String {
        switch self {
        case .join(let id, let room, let resume, let subscribeAll, let profile):
            Self.encode(
                Wire.Join(
                    id: id, room: room, resume: resume, rules: [.init(type: subscribeAll ? "include" : "exclude", all: true)],
                    bandwidthProfile: profile.map(Wire.BandwidthProfile.init)))
        case .publish(let id, let sdp, let tracks):
            Self.encode(Wire.Publish(id: id, sdp: sdp, tracks: tracks))
        case .subscribeAnswer(let sdp):
            Self.encode(Wire.SubscribeAnswer(sdp: sdp))
        case .setTrackEnabled(let id, let trackSid, let enabled):
            Self.encode(Wire.SetTrackEnabled(id: id, trackSid: trackSid, enabled: enabled))
        case .interruption(let id, let kind, let began, let reason):
            Self.encode(Wire.Interruption(id: id, kind: kind, state: began ? "began" : "ended", reason: began ? reason : nil))
        case .restartIce(let id):
            Self.encode(Wire.Request(type: "restartIce", id: id))
        case .sendMessage(let id, let content, let contentType, let to):
            Self.encode(Wire.SendMessage(id: id, content: content, contentType: contentType, to: to))
        case .setTrackPriority(let id, let trackSid, let priority):
            Self.encode(Wire.SetTrackPriority(id: id, trackSid: trackSid, priority: priority))
        case .setContentPreferences(let id, let trackSid, let dimensions):
            Self.encode(
                Wire.SetContentPreferences(
                    id: id, trackSid: trackSid, renderDimensions: .init(width: dimensions.width, height: dimensions.height)))
        case .switchOffTrack(let id, let trackSid):
            Self.encode(Wire.TrackRequest(type: "switchOffTrack", id: id, trackSid: trackSid))
        case .switchOnTrack(let id, let trackSid):
            Self.encode(Wire.TrackRequest(type: "switchOnTrack", id: id, trackSid: trackSid))
        case .ping:
            Self.encode(Wire.Request(type: "ping"))
        case .leave:
            Self.encode(Wire.Request(type: "leave"))
        }
    }

    private static func encode(_ message: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, booleans, arrays and objects only: encoding cannot fail.
        let data = (try? encoder.encode(message)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
