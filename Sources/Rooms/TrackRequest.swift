/// One entry of a `publish`'s `tracks` (PROTOCOL.md sections 3.2 and 5), as
/// Signaling read it from JSON. `kind` stays a string so the room logic can
/// answer 53300 for an unknown kind.
public struct TrackRequest: Hashable, Sendable {
    /// The m-line's `mid` in the publisher's offer.
    public var mid: String
    /// The track name, unique per participant.
    public var name: String
    /// `"audio"` or `"video"`.
    public var kind: String
    /// The publisher's enabled flag; `nil` keeps a kept track's current state
    /// (a renegotiation must not re-enable a track disabled by `setTrackEnabled`)
    /// and means enabled for a new track.
    public var enabled: Bool?
    /// The publisher's priority for a video track (PROTOCOL.md 7); nil: standard.
    public var priority: TrackPriority?
    /// The simulcast layers' sizes, if the client gave them.
    public var layers: [TrackLayer]

    public init(
        mid: String, name: String, kind: String, enabled: Bool? = nil, priority: TrackPriority? = nil,
        layers: [TrackLayer] = []
    ) {
        self.mid = mid
        self.name = name
        self.kind = kind
        self.enabled = enabled
        self.priority = priority
        self.layers = layers
    }
}

/// The answer for one published track: the SID per `mid` for `publishAnswer`.
public struct PublishedTrackAssignment: Hashable, Sendable {
    public var mid: String
    public var sid: TrackSID
    public var name: String
    public var kind: TrackKind
    /// Effective state: false when published disabled or while interrupted.
    public var enabled: Bool
    /// True when this track was new in this publish (a new SID).
    public var isNew: Bool

    public init(mid: String, sid: TrackSID, name: String, kind: TrackKind, enabled: Bool, isNew: Bool) {
        self.mid = mid
        self.sid = sid
        self.name = name
        self.kind = kind
        self.enabled = enabled
        self.isNew = isNew
    }
}
