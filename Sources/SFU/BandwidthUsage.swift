/// What the delay trend says about the path: its queue is growing
/// (`overusing`), stable (`normal`) or draining (`underusing`).
public enum BandwidthUsage: Sendable, Equatable {
    case normal
    case overusing
    case underusing
}
