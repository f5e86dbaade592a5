extension ClientSignal {
    /// The client's requests as PROTOCOL.md section 3 writes them, for
    /// `JSONEncoder` (which leaves `nil` optionals out).
    enum Wire {
        /// A request with no fields but its `type` and maybe an `id`.
        struct Request: Encodable {
            var type: String
            var id: String?
        }

        struct Rule: Encodable {
            var type: String
            var all: Bool
        }

        struct Join: Encodable {
            var type = "join"
            var id: String
            var room: String?
            var resume: String?
            var rules: [Rule]
        }

        struct Publish: Encodable {
            var type = "publish"
            var id: String
            var sdp: String
            var tracks: [PublishTrack]
        }

        struct SubscribeAnswer: Encodable {
            var type = "subscribeAnswer"
            var sdp: String
        }

        struct SetTrackEnabled: Encodable {
            var type = "setTrackEnabled"
            var id: String
            var trackSid: String
            var enabled: Bool
        }

        struct Interruption: Encodable {
            var type = "interruption"
            var id: String
            var kind: String
            var state: String
            var reason: String?
        }

        struct SendMessage: Encodable {
            var type = "sendMessage"
            var id: String
            var content: String
            var contentType: String
            var to: [String]?
        }
    }
}
