import Rooms

/// A frame from the server (PROTOCOL.md sections 3 and 3.7), encoded by
/// ``SignalingCodec/encode(_:)``. SIDs are plain strings here: this is the
/// wire form; the session maps Rooms' typed SIDs into it.
public enum ServerMessage: Sendable, Equatable {
    /// The reply to `join` (3.1), also to a resumed `join` (`resumed: true`).
    case joined(Joined)
    /// The reply to `publish` (3.2).
    case publishAnswer(PublishAnswer)
    /// An offer for the subscriber connection (3.4).
    case subscribeOffer(SubscribeOffer)
    /// The reply to a request with an `id` whose documented reply is none.
    case ok(id: String)
    /// A refused request (with its `id`), a refused join, or a 53003 frame.
    case error(id: String?, code: SignalingErrorCode, message: String)
    /// The reply to `ping`, echoing its `id` like every reply (PROTOCOL.md
    /// sections 1 and 3.6): clients that match replies by `id` wait for it.
    case pong(id: String?)
    /// `sendMessage` accepted; `sid` is the message's ME… SID (3.5).
    case messageSent(id: String?, sid: String)
    /// `sendMessage` refused with an HTTP-like code: 409, 400, 413 or 429 (3.5).
    case messageFailed(id: String?, code: Int, reason: String)
    /// A user-defined message from another participant (3.5).
    case message(Message)
    case participantConnected(ParticipantInfo)
    case participantDisconnected(participantSid: String)
    case participantReconnecting(participantSid: String)
    case participantReconnected(participantSid: String)
    case trackPublished(participantSid: String, track: Track)
    case trackUnpublished(participantSid: String, trackSid: String)
    /// `reason` is `"interrupted"` when an interruption ended, else absent (3.3).
    case trackEnabled(participantSid: String, trackSid: String, reason: String?)
    /// `reason` is `"interrupted"` for an interruption, else absent (3.3).
    case trackDisabled(participantSid: String, trackSid: String, reason: String?)
    /// `nil` (sent as JSON `null`) when nobody is speaking.
    case dominantSpeaker(participantSid: String?)
    /// Level 0-5 (5 best) and warnings such as `"high-rtt"` (3.8).
    case networkQuality(participantSid: String, level: Int, warnings: [String])
    /// The session ends; the server closes the socket after it.
    case disconnected(code: SignalingErrorCode, message: String)
    /// Connect to another node instead.
    case redirect(url: String)
    /// The room moves to another node (a drain): resume there with the
    /// session token; the server closes the socket after it.
    case reconnect(url: String)
    /// A video track this participant receives gets no layer (PROTOCOL.md 7).
    case trackSwitchedOff(trackSid: String, reason: String)
    /// It gets one again.
    case trackSwitchedOn(trackSid: String)
    /// To a simulcast track's publisher: the layers some subscriber needs.
    case publisherLayers(trackSid: String, active: [String])

    /// The `type` string of this message.
    public var type: String {
        switch self {
        case .joined: "joined"
        case .publishAnswer: "publishAnswer"
        case .subscribeOffer: "subscribeOffer"
        case .ok: "ok"
        case .error: "error"
        case .pong: "pong"
        case .messageSent: "messageSent"
        case .messageFailed: "messageFailed"
        case .message: "message"
        case .participantConnected: "participantConnected"
        case .participantDisconnected: "participantDisconnected"
        case .participantReconnecting: "participantReconnecting"
        case .participantReconnected: "participantReconnected"
        case .trackPublished: "trackPublished"
        case .trackUnpublished: "trackUnpublished"
        case .trackEnabled: "trackEnabled"
        case .trackDisabled: "trackDisabled"
        case .dominantSpeaker: "dominantSpeaker"
        case .networkQuality: "networkQuality"
        case .disconnected: "disconnected"
        case .redirect: "redirect"
        case .reconnect: "reconnect"
        case .trackSwitchedOff: "trackSwitchedOff"
        case .trackSwitchedOn: "trackSwitchedOn"
        case .publisherLayers: "publisherLayers"
        }
    }

    /// `room` in `joined`: `{sid, name, maxParticipants}`.
    public struct Room: Sendable, Equatable, Encodable {
        public var sid: String
        /// The unique name.
        public var name: String
        public var maxParticipants: Int

        public init(sid: String, name: String, maxParticipants: Int) {
            self.sid = sid
            self.name = name
            self.maxParticipants = maxParticipants
        }
    }

    /// `{sid, identity}`: `participant` in `joined`, `from` in `message`.
    public struct Participant: Sendable, Equatable, Encodable {
        public var sid: String
        public var identity: String

        public init(sid: String, identity: String) {
            self.sid = sid
            self.identity = identity
        }
    }

    /// A participant's state as others see it.
    public enum ParticipantState: String, Sendable, Equatable, Encodable {
        case connected
        case reconnecting
    }

    /// `{sid, identity, state, tracks}`: the entries of `joined.participants`
    /// and `participantConnected.participant`.
    public struct ParticipantInfo: Sendable, Equatable, Encodable {
        public var sid: String
        public var identity: String
        public var state: ParticipantState
        public var tracks: [Track]

        public init(sid: String, identity: String, state: ParticipantState, tracks: [Track]) {
            self.sid = sid
            self.identity = identity
            self.state = state
            self.tracks = tracks
        }
    }

    /// A publication as others see it: `{sid, name, kind, enabled}`.
    public struct Track: Sendable, Equatable, Encodable {
        public var sid: String
        public var name: String
        public var kind: TrackKind
        /// The effective state: enabled by its publisher and not interrupted.
        public var enabled: Bool

        public init(sid: String, name: String, kind: TrackKind, enabled: Bool) {
            self.sid = sid
            self.name = name
            self.kind = kind
            self.enabled = enabled
        }
    }

    /// An RTCIceServer: `{urls, username?, credential?}`. Vroom is ICE-lite
    /// on a public UDP port and sends `[]` unless TURN is configured.
    public struct IceServer: Sendable, Equatable, Encodable {
        public var urls: [String]
        public var username: String?
        public var credential: String?

        public init(urls: [String], username: String? = nil, credential: String? = nil) {
            self.urls = urls
            self.username = username
            self.credential = credential
        }
    }

    public struct Joined: Sendable, Equatable {
        /// The `id` of the `join` request, echoed.
        public var id: String?
        public var room: Room
        /// The joining participant itself.
        public var participant: Participant
        /// The other participants.
        public var participants: [ParticipantInfo]
        /// Opaque; works once, for a `join` with `resume`.
        public var sessionToken: String
        public var reconnectWindowSeconds: Int
        public var iceServers: [IceServer]
        /// `true` for a resumed session; `nil` (omitted) for a fresh one.
        public var resumed: Bool?

        public init(
            id: String?, room: Room, participant: Participant, participants: [ParticipantInfo],
            sessionToken: String, reconnectWindowSeconds: Int, iceServers: [IceServer] = [], resumed: Bool? = nil
        ) {
            self.id = id
            self.room = room
            self.participant = participant
            self.participants = participants
            self.sessionToken = sessionToken
            self.reconnectWindowSeconds = reconnectWindowSeconds
            self.iceServers = iceServers
            self.resumed = resumed
        }
    }

    public struct PublishAnswer: Sendable, Equatable {
        public var id: String?
        public var sdp: String
        public var tracks: [PublishedTrack]

        public init(id: String?, sdp: String, tracks: [PublishedTrack]) {
            self.id = id
            self.sdp = sdp
            self.tracks = tracks
        }
    }

    /// `{mid, sid, name, kind}` in `publishAnswer.tracks`.
    public struct PublishedTrack: Sendable, Equatable, Encodable {
        public var mid: String
        public var sid: String
        public var name: String
        public var kind: TrackKind

        public init(mid: String, sid: String, name: String, kind: TrackKind) {
            self.mid = mid
            self.sid = sid
            self.name = name
            self.kind = kind
        }
    }

    public struct SubscribeOffer: Sendable, Equatable {
        public var sdp: String
        /// Every track on the subscriber connection at this moment.
        public var tracks: [SubscribedTrack]

        public init(sdp: String, tracks: [SubscribedTrack]) {
            self.sdp = sdp
            self.tracks = tracks
        }
    }

    /// `{mid, trackSid, participantSid, name, kind}` in `subscribeOffer.tracks`.
    public struct SubscribedTrack: Sendable, Equatable, Encodable {
        public var mid: String
        public var trackSid: String
        public var participantSid: String
        public var name: String
        public var kind: TrackKind

        public init(mid: String, trackSid: String, participantSid: String, name: String, kind: TrackKind) {
            self.mid = mid
            self.trackSid = trackSid
            self.participantSid = participantSid
            self.name = name
            self.kind = kind
        }
    }

    /// `message {sid, from, content, contentType, sequenceNumber}` (3.5).
    public struct Message: Sendable, Equatable, Encodable {
        public var sid: String
        public var from: Participant
        public var content: String
        public var contentType: String
        /// Counts from 0 per sender.
        public var sequenceNumber: Int

        public init(sid: String, from: Participant, content: String, contentType: String, sequenceNumber: Int) {
            self.sid = sid
            self.from = from
            self.content = content
            self.contentType = contentType
            self.sequenceNumber = sequenceNumber
        }
    }
}
