import Foundation
import Testing

@testable import Signaling

/// Every server message encodes to exactly the JSON of PROTOCOL.md: the
/// encoded text is parsed and compared as an object (keys as a set, values
/// by type), so a missing, extra or mistyped key fails.
@Suite struct ServerMessageEncodingTests {
    static let track = ServerMessage.Track(sid: "MT…", name: "camera", kind: .video, enabled: true)
    static let bob = ServerMessage.ParticipantInfo(sid: "PA…", identity: "bob", state: .connected, tracks: [track])

    static func expectEncodes(_ message: ServerMessage, to expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = SignalingCodec.encode(message)
        let parsed = JSONValue.parse(text)
        let wanted = JSONValue.parse(expected)
        #expect(wanted != nil, "the expected JSON does not parse", sourceLocation: sourceLocation)
        #expect(parsed == wanted, "\(text)\n!=\n\(expected)", sourceLocation: sourceLocation)
        #expect(text.hasPrefix(#"{"type":""#), "type comes first: \(text)", sourceLocation: sourceLocation)
    }

    @Test func joinedExample() {
        Self.expectEncodes(
            .joined(
                .init(
                    id: "1", room: .init(sid: "RM…", name: "standup", maxParticipants: 50),
                    participant: .init(sid: "PA…", identity: "alice"), participants: [Self.bob],
                    sessionToken: "<opaque>", reconnectWindowSeconds: 30, iceServers: [])),
            to: #"""
                {"type":"joined","id":"1",
                 "room":{"sid":"RM…","name":"standup","maxParticipants":50},
                 "participant":{"sid":"PA…","identity":"alice"},
                 "participants":[{"sid":"PA…","identity":"bob","state":"connected",
                                  "tracks":[{"sid":"MT…","name":"camera","kind":"video","enabled":true}]}],
                 "sessionToken":"<opaque>","reconnectWindowSeconds":30,
                 "iceServers":[]}
                """#)
    }

    @Test func resumedJoinedWithoutIdAndWithIceServers() {
        Self.expectEncodes(
            .joined(
                .init(
                    id: nil, room: .init(sid: "RM1", name: "r", maxParticipants: 2),
                    participant: .init(sid: "PA1", identity: "a"),
                    participants: [.init(sid: "PA2", identity: "b", state: .reconnecting, tracks: [])],
                    sessionToken: "t", reconnectWindowSeconds: 5,
                    iceServers: [.init(urls: ["stun:127.0.0.1:3478"]), .init(urls: ["turn:x"], username: "u", credential: "c")],
                    resumed: true)),
            to: #"""
                {"type":"joined","room":{"sid":"RM1","name":"r","maxParticipants":2},
                 "participant":{"sid":"PA1","identity":"a"},
                 "participants":[{"sid":"PA2","identity":"b","state":"reconnecting","tracks":[]}],
                 "sessionToken":"t","reconnectWindowSeconds":5,
                 "iceServers":[{"urls":["stun:127.0.0.1:3478"]},{"urls":["turn:x"],"username":"u","credential":"c"}],
                 "resumed":true}
                """#)
    }

    @Test func publishAnswerExample() {
        Self.expectEncodes(
            .publishAnswer(
                .init(
                    id: "2", sdp: "v=0…",
                    tracks: [
                        .init(mid: "0", sid: "MT…", name: "mic", kind: .audio),
                        .init(mid: "1", sid: "MT2", name: "camera", kind: .video),
                    ])),
            to: #"""
                {"type":"publishAnswer","id":"2","sdp":"v=0…",
                 "tracks":[{"mid":"0","sid":"MT…","name":"mic","kind":"audio"},
                           {"mid":"1","sid":"MT2","name":"camera","kind":"video"}]}
                """#)
        Self.expectEncodes(
            .publishAnswer(.init(id: nil, sdp: "v=0", tracks: [])), to: #"{"type":"publishAnswer","sdp":"v=0","tracks":[]}"#)
    }

    @Test func subscribeOfferExample() {
        Self.expectEncodes(
            .subscribeOffer(
                .init(
                    sdp: "v=0…",
                    tracks: [.init(mid: "0", trackSid: "MT…", participantSid: "PA…", name: "camera", kind: .video)])),
            to: #"""
                {"type":"subscribeOffer","sdp":"v=0…",
                 "tracks":[{"mid":"0","trackSid":"MT…","participantSid":"PA…","name":"camera","kind":"video"}]}
                """#)
    }

    @Test func repliesOkErrorPong() {
        Self.expectEncodes(.ok(id: "5"), to: #"{"type":"ok","id":"5"}"#)
        Self.expectEncodes(
            .error(id: "3", code: .signalingIncomingMessageInvalid, message: "bad"),
            to: #"{"type":"error","id":"3","code":53003,"message":"bad"}"#)
        Self.expectEncodes(
            SignalingError(.roomNotFound).errorMessage(id: nil),
            to: #"{"type":"error","code":53106,"message":"Room not found"}"#)
        Self.expectEncodes(.pong(id: nil), to: #"{"type":"pong"}"#)
        Self.expectEncodes(.pong(id: "p1"), to: #"{"type":"pong","id":"p1"}"#)
    }

    @Test func messageRepliesAndDeliveryExamples() {
        Self.expectEncodes(.messageSent(id: "7", sid: "ME…"), to: #"{"type":"messageSent","id":"7","sid":"ME…"}"#)
        Self.expectEncodes(
            .messageFailed(id: "7", code: 413, reason: "payload-too-large"),
            to: #"{"type":"messageFailed","id":"7","code":413,"reason":"payload-too-large"}"#)
        Self.expectEncodes(
            .message(
                .init(
                    sid: "ME…", from: .init(sid: "PA…", identity: "alice"), content: "…",
                    contentType: "application/json", sequenceNumber: 0)),
            to: #"""
                {"type":"message","sid":"ME…","from":{"sid":"PA…","identity":"alice"},
                 "content":"…","contentType":"application/json","sequenceNumber":0}
                """#)
    }

    @Test func participantEvents() {
        Self.expectEncodes(
            .participantConnected(Self.bob),
            to: #"""
                {"type":"participantConnected","participant":{"sid":"PA…","identity":"bob","state":"connected",
                 "tracks":[{"sid":"MT…","name":"camera","kind":"video","enabled":true}]}}
                """#)
        Self.expectEncodes(
            .participantDisconnected(participantSid: "PA…"), to: #"{"type":"participantDisconnected","participantSid":"PA…"}"#)
        Self.expectEncodes(
            .participantReconnecting(participantSid: "PA…"),
            to: #"{"type":"participantReconnecting","participantSid":"PA…"}"#)
        Self.expectEncodes(
            .participantReconnected(participantSid: "PA…"), to: #"{"type":"participantReconnected","participantSid":"PA…"}"#)
    }

    @Test func trackEvents() {
        Self.expectEncodes(
            .trackPublished(participantSid: "PA…", track: .init(sid: "MT…", name: "mic", kind: .audio, enabled: false)),
            to: #"""
                {"type":"trackPublished","participantSid":"PA…",
                 "track":{"sid":"MT…","name":"mic","kind":"audio","enabled":false}}
                """#)
        Self.expectEncodes(
            .trackUnpublished(participantSid: "PA…", trackSid: "MT…"),
            to: #"{"type":"trackUnpublished","participantSid":"PA…","trackSid":"MT…"}"#)
        Self.expectEncodes(
            .trackEnabled(participantSid: "PA…", trackSid: "MT…", reason: nil),
            to: #"{"type":"trackEnabled","participantSid":"PA…","trackSid":"MT…"}"#)
        Self.expectEncodes(
            .trackEnabled(participantSid: "PA…", trackSid: "MT…", reason: "interrupted"),
            to: #"{"type":"trackEnabled","participantSid":"PA…","trackSid":"MT…","reason":"interrupted"}"#)
        Self.expectEncodes(
            .trackDisabled(participantSid: "PA…", trackSid: "MT…", reason: "interrupted"),
            to: #"{"type":"trackDisabled","participantSid":"PA…","trackSid":"MT…","reason":"interrupted"}"#)
        Self.expectEncodes(
            .trackDisabled(participantSid: "PA…", trackSid: "MT…", reason: nil),
            to: #"{"type":"trackDisabled","participantSid":"PA…","trackSid":"MT…"}"#)
    }

    @Test func dominantSpeakerSendsAnExplicitNull() {
        Self.expectEncodes(
            .dominantSpeaker(participantSid: "PA…"), to: #"{"type":"dominantSpeaker","participantSid":"PA…"}"#)
        Self.expectEncodes(.dominantSpeaker(participantSid: nil), to: #"{"type":"dominantSpeaker","participantSid":null}"#)
        #expect(SignalingCodec.encode(.dominantSpeaker(participantSid: nil)).contains(#""participantSid":null"#))
    }

    @Test func networkQualityDisconnectedRedirect() {
        Self.expectEncodes(
            .networkQuality(participantSid: "PA…", level: 3, warnings: ["high-rtt", "high-packet-loss"]),
            to: #"{"type":"networkQuality","participantSid":"PA…","level":3,"warnings":["high-rtt","high-packet-loss"]}"#)
        Self.expectEncodes(
            .networkQuality(participantSid: "PA…", level: 5, warnings: []),
            to: #"{"type":"networkQuality","participantSid":"PA…","level":5,"warnings":[]}"#)
        Self.expectEncodes(
            SignalingError(.participantDuplicateIdentity).disconnectedMessage,
            to: #"{"type":"disconnected","code":53205,"message":"Participant disconnected because of duplicate identity"}"#)
        Self.expectEncodes(.redirect(url: "wss://node2/v1/signal"), to: #"{"type":"redirect","url":"wss://node2/v1/signal"}"#)
    }

    @Test func numbersAreIntegersAndStringsAreEscaped() {
        let text = SignalingCodec.encode(
            .message(
                .init(
                    sid: "ME1", from: .init(sid: "PA1", identity: "a\"b\\c\u{1}"), content: "line\nbreak\ttab é 😀",
                    contentType: "application/json", sequenceNumber: 12)))
        #expect(text.contains(#""sequenceNumber":12"#))
        #expect(text.contains(#""identity":"a\"b\\c\u0001""#))
        #expect(text.contains(#""content":"line\nbreak\ttab é 😀""#))
        // Foundation's parser reads it back to the same strings.
        let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(object?["content"] as? String == "line\nbreak\ttab é 😀")
        #expect((object?["from"] as? [String: Any])?["identity"] as? String == "a\"b\\c\u{1}")
    }

    /// Each case is covered above; this keeps the list honest when a case is added.
    @Test func everyTypeHasItsProtocolName() {
        let all: [ServerMessage] = [
            .joined(
                .init(
                    id: nil, room: .init(sid: "", name: "", maxParticipants: 0), participant: .init(sid: "", identity: ""),
                    participants: [], sessionToken: "", reconnectWindowSeconds: 0)),
            .publishAnswer(.init(id: nil, sdp: "", tracks: [])), .subscribeOffer(.init(sdp: "", tracks: [])),
            .ok(id: ""), .error(id: nil, code: .roomNotFound, message: ""), .pong(id: nil), .messageSent(id: nil, sid: ""),
            .messageFailed(id: nil, code: 0, reason: ""),
            .message(.init(sid: "", from: .init(sid: "", identity: ""), content: "", contentType: "", sequenceNumber: 0)),
            .participantConnected(Self.bob), .participantDisconnected(participantSid: ""),
            .participantReconnecting(participantSid: ""), .participantReconnected(participantSid: ""),
            .trackPublished(participantSid: "", track: Self.track), .trackUnpublished(participantSid: "", trackSid: ""),
            .trackEnabled(participantSid: "", trackSid: "", reason: nil),
            .trackDisabled(participantSid: "", trackSid: "", reason: nil), .dominantSpeaker(participantSid: nil),
            .networkQuality(participantSid: "", level: 0, warnings: []), .disconnected(code: .roomCompleted, message: ""),
            .redirect(url: ""), .trackSwitchedOff(trackSid: "", reason: ""), .trackSwitchedOn(trackSid: ""),
            .publisherLayers(trackSid: "", active: []),
        ]
        let names = all.map { JSONValue.parse(SignalingCodec.encode($0))?["type"] }
        #expect(
            names.map { if case .string(let s)? = $0 { s } else { "?" } } == [
                "joined", "publishAnswer", "subscribeOffer", "ok", "error", "pong", "messageSent", "messageFailed",
                "message", "participantConnected", "participantDisconnected", "participantReconnecting",
                "participantReconnected", "trackPublished", "trackUnpublished", "trackEnabled", "trackDisabled",
                "dominantSpeaker", "networkQuality", "disconnected", "redirect", "trackSwitchedOff", "trackSwitchedOn",
                "publisherLayers",
            ])
    }
}
