/// A video track's priority (PROTOCOL.md section 7, Twilio's names): set by
/// its publisher in its `tracks` entry, overridden by a subscriber for
/// itself with `setTrackPriority`.
public enum TrackPriority: String, Hashable, Sendable, Codable, CaseIterable {
    case low
    case standard
    case high
}
