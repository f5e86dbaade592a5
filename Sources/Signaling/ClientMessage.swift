import Rooms

/// A request from a client, as decoded from one WebSocket text frame
/// (PROTOCOL.md section 3). The request's optional `id` travels beside it in
/// ``DecodedFrame/request(_:id:)``. Unknown fields are ignored (forward compatible).
public enum ClientMessage: Sendable, Equatable {
    /// `join {room?, name?, resume?, rules?}` (3.1).
    case join(Join)
    /// `publish {sdp, tracks}`: a full offer for the publisher connection (3.2).
    case publish(Publish)
    /// `unpublish {trackSid}` (3.2).
    case unpublish(trackSid: String)
    /// `setTrackEnabled {trackSid, enabled}` (3.3).
    case setTrackEnabled(trackSid: String, enabled: Bool)
    /// `interruption {kind, state, reason?}` (3.3).
    case interruption(Interruption)
    /// `updateSubscriptions {rules}`: replaces the rules (3.4).
    case updateSubscriptions(rules: [SubscribeRule])
    /// `restartIce`: asks for a subscriber offer with new ICE credentials (3.4).
    case restartIce
    /// `subscribeAnswer {sdp}`: the answer to the last `subscribeOffer` (3.4).
    case subscribeAnswer(sdp: String)
    /// `sendMessage {content, contentType, to?}` (3.5).
    case sendMessage(SendMessage)
    /// `ping`: liveness (3.6).
    case ping
    /// `leave`: leave at once (3.6).
    case leave
    /// `candidate`: trickle ICE, accepted and ignored (the server is ICE-lite, section 5).
    case candidate
    /// `setTrackPriority {trackSid, priority}`: this subscriber's own
    /// priority for a video track; `null` goes back to the publisher's (7).
    case setTrackPriority(trackSid: String, priority: TrackPriority?)
    /// `setContentPreferences {trackSid, renderDimensions}`: the size this
    /// subscriber renders a video track at; `null` clears it (7).
    case setContentPreferences(trackSid: String, renderDimensions: RenderSize?)
    /// `switchOffTrack` / `switchOnTrack {trackSid}` under
    /// `clientTrackSwitchOffControl: "manual"` (7).
    case switchOffTrack(trackSid: String)
    case switchOnTrack(trackSid: String)

    /// The `type` string of this message.
    public var type: String {
        switch self {
        case .join: "join"
        case .publish: "publish"
        case .unpublish: "unpublish"
        case .setTrackEnabled: "setTrackEnabled"
        case .interruption: "interruption"
        case .updateSubscriptions: "updateSubscriptions"
        case .restartIce: "restartIce"
        case .subscribeAnswer: "subscribeAnswer"
        case .sendMessage: "sendMessage"
        case .ping: "ping"
        case .leave: "leave"
        case .candidate: "candidate"
        case .setTrackPriority: "setTrackPriority"
        case .setContentPreferences: "setContentPreferences"
        case .switchOffTrack: "switchOffTrack"
        case .switchOnTrack: "switchOnTrack"
        }
    }

    public struct Join: Sendable, Equatable, Decodable {
        /// A room's unique name or SID; may be omitted when the token names one.
        public var room: String?
        /// A display name for the participant (free text).
        public var name: String?
        /// The `sessionToken` of an earlier `joined`, to resume within the reconnect window.
        public var resume: String?
        /// Initial subscribe rules; `nil` means the default, include all.
        public var rules: [SubscribeRule]?
        /// Twilio's Network Bandwidth Profile (7); `nil`: the defaults.
        public var bandwidthProfile: BandwidthProfile?

        public init(
            room: String? = nil, name: String? = nil, resume: String? = nil, rules: [SubscribeRule]? = nil,
            bandwidthProfile: BandwidthProfile? = nil
        ) {
            self.room = room
            self.name = name
            self.resume = resume
            self.rules = rules
            self.bandwidthProfile = bandwidthProfile
        }
    }

    public struct Publish: Sendable, Equatable, Decodable {
        /// The SDP offer, describing every current publication.
        public var sdp: String
        /// One entry per sending m-line, matched by `mid`.
        public var tracks: [TrackDescription]

        public init(sdp: String, tracks: [TrackDescription]) {
            self.sdp = sdp
            self.tracks = tracks
        }
    }

    /// `{mid, name, kind, enabled?}` in `publish.tracks`.
    public struct TrackDescription: Sendable, Equatable, Decodable {
        public var mid: String
        public var name: String
        /// `"audio"` or `"video"`; any other string is a bad track
        /// description, 53300 from the room logic (PROTOCOL.md section 4),
        /// not a malformed frame.
        public var kind: String
        /// `nil` when absent: the track starts enabled.
        public var enabled: Bool?
        /// The publisher's priority for a video track (7); `nil`: standard.
        public var priority: TrackPriority?
        /// Simulcast layer sizes by RID (7), optional.
        public var layers: [TrackLayer]?

        public init(
            mid: String, name: String, kind: String, enabled: Bool? = nil, priority: TrackPriority? = nil,
            layers: [TrackLayer]? = nil
        ) {
            self.mid = mid
            self.name = name
            self.kind = kind
            self.enabled = enabled
            self.priority = priority
            self.layers = layers
        }
    }

    public struct Interruption: Sendable, Equatable, Decodable {
        /// `camera` disables the participant's video tracks, `audio` its audio
        /// tracks and the audio forwarded to it.
        public var kind: InterruptionKind
        public var state: InterruptionState
        /// Free text from the client's OS, e.g. `"phoneCall"`; for logs only.
        public var reason: String?

        public init(kind: InterruptionKind, state: InterruptionState, reason: String? = nil) {
            self.kind = kind
            self.state = state
            self.reason = reason
        }
    }

    public struct SendMessage: Sendable, Equatable, Decodable {
        public var content: String
        public var contentType: String
        /// Recipient identities; `nil` means everyone else in the room.
        public var to: [String]?

        public init(content: String, contentType: String, to: [String]? = nil) {
            self.content = content
            self.contentType = contentType
            self.to = to
        }
    }
}
