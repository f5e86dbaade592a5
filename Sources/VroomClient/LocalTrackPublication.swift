/// One of this participant's tracks as the room knows it: the server's SID
/// for it.
public struct LocalTrackPublication: Sendable, Equatable {
    public var trackSid: String
    public var trackName: String
    public var kind: TrackKind
    /// The priority it was published with (nil: the server's default, standard).
    public var priority: TrackPriority?

    public init(trackSid: String, trackName: String, kind: TrackKind, priority: TrackPriority? = nil) {
        self.trackSid = trackSid
        self.trackName = trackName
        self.kind = kind
        self.priority = priority
    }
}
