/// A video track's priority (PROTOCOL.md section 7, Twilio's names): set by
/// its publisher, overridden by a subscriber for itself. Ordered low first.
public enum TrackPriority: String, Comparable, Hashable, Sendable, CaseIterable {
    case low
    case standard
    case high

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }

    private var rank: Int {
        switch self {
        case .low: 0
        case .standard: 1
        case .high: 2
        }
    }
}
