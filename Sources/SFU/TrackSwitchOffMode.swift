/// When the allocator may switch a subscribed video track off for want of
/// bandwidth: the bandwidth profile's `trackSwitchOffMode` (PROTOCOL.md
/// section 7, Twilio's names).
public enum TrackSwitchOffMode: String, Hashable, Sendable, CaseIterable {
    /// Only once congestion is detected: the estimate fell, and what is
    /// forwarded no longer fits it. Until then a track that does not fit
    /// keeps its lowest layer.
    case detected
    /// Ahead of congestion: as soon as the estimate says a track's lowest
    /// layer will not fit.
    case predicted
    /// Never: every track keeps at least its lowest layer.
    case disabled
}
