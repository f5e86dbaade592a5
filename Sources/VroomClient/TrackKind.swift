/// Audio or video.
public enum TrackKind: String, Sendable, Hashable, CaseIterable {
    case audio
    case video
}
