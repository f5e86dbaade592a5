import Foundation

extension ServerSignal {
    /// The server's messages as PROTOCOL.md sections 3 and 3.7 write them,
    /// for `JSONDecoder`. Optional fields are those the protocol marks
    /// optional or that older servers leave out; their defaults are applied
    /// where a `ServerSignal` is made of them.
    enum Wire {
        struct Envelope: Decodable {
            var type: String
        }

        struct Room: Decodable {
            var sid: String
            var name: String
        }

        struct Identity: Decodable {
            var sid: String
            var identity: String
        }

        struct Track: Decodable {
            var sid: String
            var name: String
            var kind: TrackKind
            var enabled: Bool?

            var track: ServerSignal.Track { .init(sid: sid, name: name, kind: kind, enabled: enabled ?? true) }
        }

        struct Participant: Decodable {
            var sid: String
            var identity: String
            var state: String?
            var tracks: [Track]?

            var participant: ServerSignal.Participant {
                .init(sid: sid, identity: identity, state: state ?? "connected", tracks: (tracks ?? []).map(\.track))
            }
        }

        struct Joined: Decodable {
            var id: String?
            var room: Room
            var participant: Identity
            var participants: [Participant]
            var sessionToken: String
            var reconnectWindowSeconds: Int?
            var resumed: Bool?
        }

        struct PublishAnswer: Decodable {
            var id: String?
            var sdp: String
            var tracks: [PublishedTrack]
        }

        struct SubscribeOffer: Decodable {
            var sdp: String
            var tracks: [SubscribedTrack]
        }

        struct OK: Decodable {
            var id: String
        }

        /// `error`: a refused request (or join).
        struct Failure: Decodable {
            var id: String?
            var code: Int
            var message: String?
        }

        struct ParticipantEvent: Decodable {
            var participant: Participant
        }

        struct ParticipantSid: Decodable {
            var participantSid: String
        }

        struct TrackPublished: Decodable {
            var participantSid: String
            var track: Track
        }

        /// `trackUnpublished`, `trackEnabled`, `trackDisabled`.
        struct TrackState: Decodable {
            var participantSid: String
            var trackSid: String
            var reason: String?
        }

        struct MessageSent: Decodable {
            var id: String?
            var sid: String
        }

        struct MessageFailed: Decodable {
            var id: String?
            var code: Int
            var reason: String?
        }

        struct Message: Decodable {
            var sid: String
            var from: Identity
            var content: String
            var contentType: String?
            var sequenceNumber: Int?
        }

        struct DominantSpeaker: Decodable {
            var participantSid: String?
        }

        struct NetworkQuality: Decodable {
            var participantSid: String
            var level: Int
            var warnings: [String]?
        }

        struct Disconnected: Decodable {
            var code: Int
            var message: String?
        }

        /// `redirect` and `reconnect`: another node's signaling URL.
        struct NodeURL: Decodable {
            var url: String
        }

        /// `trackSwitchedOff` (with a reason), `trackSwitchedOn`.
        struct TrackSwitch: Decodable {
            var trackSid: String
            var reason: String?
        }

        struct PublisherLayers: Decodable {
            var trackSid: String
            var active: [String]
        }
    }
}
