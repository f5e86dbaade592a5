/// One of Twilio's subscribe rules (PROTOCOL.md section 3.4):
/// `{"type":"include"|"exclude", "all":true, "kind":…, "publisher":…, "track":…}`.
///
/// A rule matches a track when every criterion it names matches (ANDed);
/// `all: true` matches every track; a rule naming no criterion matches
/// nothing. Evaluation starts from "not subscribed" and applies the rules in
/// order, each matching rule setting the answer, so later rules win. The
/// default rule list is `[include all]`; an empty list subscribes to nothing.
public struct SubscribeRule: Hashable, Sendable, Codable {
    /// Include or exclude.
    public enum RuleType: String, Hashable, Sendable, Codable, CaseIterable {
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

/// The wire shape of PROTOCOL.md 3.4, shared by `join.rules`,
/// `updateSubscriptions.rules` and the REST `Rules` parameter. `all` is
/// written only when true (Twilio only ever sends `true`; `false` adds no
/// criterion), absent criteria are omitted, and `null` reads as absent.
extension SubscribeRule {
    private enum CodingKeys: String, CodingKey {
        case type, all, kind, publisher, track
    }

    /// Refuses a rule naming no criterion (`{"type":"include"}`), as
    /// Twilio's REST API refuses it, rather than guessing it means "all".
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let raw = try container.decode(String.self, forKey: .type)
        guard let type = RuleType(rawValue: raw) else {
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "must be one of \"include\", \"exclude\"")
        }
        self.init(
            type: type, all: try container.decodeIfPresent(Bool.self, forKey: .all) ?? false,
            kind: try container.decodeIfPresent(TrackKind.self, forKey: .kind),
            publisher: try container.decodeIfPresent(String.self, forKey: .publisher),
            track: try container.decodeIfPresent(String.self, forKey: .track))
        guard all || kind != nil || publisher != nil || track != nil else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "needs at least one of all, kind, publisher, track"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        if all { try container.encode(true, forKey: .all) }
        try container.encodeIfPresent(kind, forKey: .kind)
        try container.encodeIfPresent(publisher, forKey: .publisher)
        try container.encodeIfPresent(track, forKey: .track)
    }
}
