/// The kind of a track on the wire: `"audio"` or `"video"` (Vroom has no data tracks).
public enum SignalingTrackKind: String, Sendable, Codable, CaseIterable, Hashable {
    case audio
    case video
}
