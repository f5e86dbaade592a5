/// A track this client publishes, as the engine sees it: the SDK's track
/// name (unique per participant) is its key; `enabled` false sends no media.
struct LocalMediaTrack: Hashable, Sendable {
    var name: String
    var kind: TrackKind
    var enabled: Bool
}
