/// One of Twilio's subscribe rules (PROTOCOL.md section 3.4):
/// `{"type":"include"|"exclude", "all":true, "kind":…, "publisher":…, "track":…}`.
///
/// A rule matches a track when every criterion it names matches (ANDed);
/// `all: true` matches every track; a rule naming no criterion matches
/// nothing. Evaluation starts from "not subscribed" and applies the rules in
/// order, each matching rule setting the answer, so later rules win. The
/// default rule list is `[include all]`; an empty list subscribes to nothing.
public struct SubscribeRule: Hashable, Sendable {
    /// Include or exclude.
    public enum RuleType: String, Hashable, Sendable {
        case include
        case exclude
    }

    public var type: RuleType
    /// Matches every track when true.
    public var all: Bool
    /// Matches tracks of this kind.
    public var kind: TrackKind?
    /// Matches tracks whose publisher has this identity (or this participant SID).
    public var publisher: String?
    /// Matches the track with this SID or name.
    public var track: String?

    public init(type: RuleType, all: Bool = false, kind: TrackKind? = nil, publisher: String? = nil, track: String? = nil) {
        self.type = type
        self.all = all
        self.kind = kind
        self.publisher = publisher
        self.track = track
    }

    /// `[{"type":"include","all":true}]`, the default.
    public static let includeAll: [SubscribeRule] = [SubscribeRule(type: .include, all: true)]
    /// `[{"type":"exclude","all":true}]`, what publish-only clients send.
    public static let excludeAll: [SubscribeRule] = [SubscribeRule(type: .exclude, all: true)]

    /// Whether this rule's criteria all hold for the track.
    public func matches(publisherIdentity: String, publisherSID: ParticipantSID, trackSID: TrackSID, trackName: String, kind trackKind: TrackKind) -> Bool {
        if !all && kind == nil && publisher == nil && track == nil { return false }
        if let kind, kind != trackKind { return false }
        if let publisher, publisher != publisherIdentity, publisher != publisherSID.rawValue { return false }
        if let track, track != trackSID.rawValue, track != trackName { return false }
        return true
    }

    /// The answer of a rule list for one track: later matching rules win.
    public static func evaluate(_ rules: [SubscribeRule], publisherIdentity: String, publisherSID: ParticipantSID, trackSID: TrackSID, trackName: String, kind: TrackKind) -> Bool {
        var subscribed = false
        for rule in rules where rule.matches(publisherIdentity: publisherIdentity, publisherSID: publisherSID, trackSID: trackSID, trackName: trackName, kind: kind) {
            subscribed = rule.type == .include
        }
        return subscribed
    }
}
