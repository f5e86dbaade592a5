/// One subscribe rule as it travels in `join.rules`, `updateSubscriptions.rules`
/// (PROTOCOL.md 3.4) and the REST `Rules` parameter, in Twilio's shape:
/// `{"type":"include"|"exclude","all":true,"kind":"video","publisher":"bob","track":"MT…"}`.
/// The criteria present are ANDed; later rules win. This is the wire form
/// only: Rooms has its own domain type and the session maps between them.
public struct SignalingSubscribeRule: Sendable, Codable, Hashable {
    /// Whether matching tracks are subscribed or not.
    public enum RuleType: String, Sendable, Codable, Hashable, CaseIterable {
        case include
        case exclude
    }

    public var type: RuleType
    /// `true` matches every track. Twilio only ever sends `true`; `false` adds no criterion.
    public var all: Bool?
    public var kind: SignalingTrackKind?
    /// A publisher's identity.
    public var publisher: String?
    /// A track SID or a track name.
    public var track: String?

    public init(
        type: RuleType, all: Bool? = nil, kind: SignalingTrackKind? = nil, publisher: String? = nil,
        track: String? = nil
    ) {
        self.type = type
        self.all = all
        self.kind = kind
        self.publisher = publisher
        self.track = track
    }

    /// Whether the rule names at least one criterion. A rule with none
    /// (`{"type":"include"}`) is refused, as Twilio's REST API refuses it,
    /// rather than guessed to mean "all".
    public var hasCriterion: Bool {
        all == true || kind != nil || publisher != nil || track != nil
    }

    /// The default rule set: subscribed to everything.
    public static let includeAll: [SignalingSubscribeRule] = [SignalingSubscribeRule(type: .include, all: true)]
}
