import Foundation

/// A publication as other participants see it (`joined`, `participantConnected`,
/// `trackPublished`). `enabled` is the effective state: enabled by the
/// publisher AND not interrupted.
public struct TrackInfo: Hashable, Sendable {
    public var sid: TrackSID
    public var name: String
    public var kind: TrackKind
    public var enabled: Bool
}
