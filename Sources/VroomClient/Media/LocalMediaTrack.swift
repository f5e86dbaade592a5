/// A track this client publishes, as the engine sees it: the SDK's track
/// name (unique per participant) is its key; `enabled` false sends no media.
struct LocalMediaTrack: Hashable, Sendable {
    var name: String
    var kind: TrackKind
    var enabled: Bool
    /// A simulcast video track's layers' RIDs, lowest first (PROTOCOL.md
    /// section 7); empty: one layer.
    var rids: [String] = []
}
