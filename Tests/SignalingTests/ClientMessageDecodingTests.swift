import Foundation
import Testing

@testable import Signaling

/// Every client example of PROTOCOL.md section 3, verbatim, and the
/// invalid-frame rules of section 1.
@Suite struct ClientMessageDecodingTests {
    static let sdp = "v=0…"

    @Test func joinExample() {
        let frame = #"""
            {"type":"join","id":"1","room":"standup","name":"Alice's laptop",
             "resume":"<sessionToken from an earlier joined, optional>",
             "rules":[{"type":"include","all":true}]}
            """#
        #expect(
            SignalingCodec.decode(frame)
                == .request(
                    .join(
                        .init(
                            room: "standup", name: "Alice's laptop",
                            resume: "<sessionToken from an earlier joined, optional>",
                            rules: [.init(type: .include, all: true)])), id: "1"))
    }

    @Test func minimalJoinAndPublishOnlyRules() {
        #expect(SignalingCodec.decode(#"{"type":"join"}"#) == .request(.join(.init()), id: nil))
        #expect(
            SignalingCodec.decode(#"{"type":"join","rules":[{"type":"exclude","all":true}]}"#)
                == .request(.join(.init(rules: [.init(type: .exclude, all: true)])), id: nil))
        // null counts as absent for optional fields.
        #expect(
            SignalingCodec.decode(#"{"type":"join","id":null,"room":null,"rules":null}"#)
                == .request(.join(.init()), id: nil))
    }

    @Test func publishExample() {
        let frame = #"""
            {"type":"publish","id":"2","sdp":"v=0…",
             "tracks":[{"mid":"0","name":"mic","kind":"audio"},{"mid":"1","name":"camera","kind":"video"}]}
            """#
        #expect(
            SignalingCodec.decode(frame)
                == .request(
                    .publish(
                        .init(
                            sdp: Self.sdp,
                            tracks: [
                                .init(mid: "0", name: "mic", kind: "audio"), .init(mid: "1", name: "camera", kind: "video"),
                            ])), id: "2"))
    }

    @Test func publishTrackMayStartDisabled() {
        let frame = #"{"type":"publish","sdp":"x","tracks":[{"mid":"0","name":"cam","kind":"video","enabled":false}]}"#
        #expect(
            SignalingCodec.decode(frame)
                == .request(.publish(.init(sdp: "x", tracks: [.init(mid: "0", name: "cam", kind: "video", enabled: false)])), id: nil))
    }

    @Test func unpublishAndSetTrackEnabledExamples() {
        #expect(
            SignalingCodec.decode(#"{"type":"unpublish","trackSid":"MT…"}"#)
                == .request(.unpublish(trackSid: "MT…"), id: nil))
        #expect(
            SignalingCodec.decode(#"{"type":"setTrackEnabled","trackSid":"MT…","enabled":false}"#)
                == .request(.setTrackEnabled(trackSid: "MT…", enabled: false), id: nil))
    }

    @Test func interruptionExamples() {
        let cases: [(String, ClientMessage.Interruption)] = [
            (
                #"{"type":"interruption","kind":"camera","state":"began","reason":"videoDeviceNotAvailableInBackground"}"#,
                .init(kind: .camera, state: .began, reason: "videoDeviceNotAvailableInBackground")
            ),
            (#"{"type":"interruption","kind":"camera","state":"ended"}"#, .init(kind: .camera, state: .ended)),
            (
                #"{"type":"interruption","kind":"audio","state":"began","reason":"phoneCall"}"#,
                .init(kind: .audio, state: .began, reason: "phoneCall")
            ),
            (#"{"type":"interruption","kind":"audio","state":"ended"}"#, .init(kind: .audio, state: .ended)),
        ]
        for (frame, expected) in cases {
            #expect(SignalingCodec.decode(frame) == .request(.interruption(expected), id: nil), "\(frame)")
        }
    }

    @Test func subscriptionExamples() {
        #expect(
            SignalingCodec.decode(#"{"type":"subscribeAnswer","sdp":"v=0…"}"#)
                == .request(.subscribeAnswer(sdp: Self.sdp), id: nil))
        let update = #"""
            {"type":"updateSubscriptions","rules":[{"type":"include","all":true},
            {"type":"exclude","kind":"video","publisher":"bob"}]}
            """#
        #expect(
            SignalingCodec.decode(update)
                == .request(
                    .updateSubscriptions(rules: [
                        .init(type: .include, all: true), .init(type: .exclude, kind: .video, publisher: "bob"),
                    ]), id: nil))
        #expect(
            SignalingCodec.decode(#"{"type":"updateSubscriptions","id":"9","rules":[{"type":"include","track":"MTx"}]}"#)
                == .request(.updateSubscriptions(rules: [.init(type: .include, track: "MTx")]), id: "9"))
        #expect(SignalingCodec.decode(#"{"type":"restartIce"}"#) == .request(.restartIce, id: nil))
    }

    @Test func sendMessageExample() {
        let frame = #"""
            {"type":"sendMessage","id":"7","content":"{\"k\":1}","contentType":"application/json",
             "to":["bob"]}
            """#
        #expect(
            SignalingCodec.decode(frame)
                == .request(.sendMessage(.init(content: #"{"k":1}"#, contentType: "application/json", to: ["bob"])), id: "7"))
        #expect(
            SignalingCodec.decode(#"{"type":"sendMessage","content":"1","contentType":"application/json"}"#)
                == .request(.sendMessage(.init(content: "1", contentType: "application/json")), id: nil))
    }

    @Test func livenessLeaveAndCandidate() {
        #expect(SignalingCodec.decode(#"{"type":"ping"}"#) == .request(.ping, id: nil))
        #expect(SignalingCodec.decode(#"{"type":"leave"}"#) == .request(.leave, id: nil))
        #expect(
            SignalingCodec.decode(#"{"type":"candidate","candidate":"candidate:1 1 udp 1 1.2.3.4 5 typ host","sdpMid":"0"}"#)
                == .request(.candidate, id: nil))
    }

    @Test func unknownFieldsAreIgnored() {
        #expect(
            SignalingCodec.decode(#"{"type":"ping","id":"p","future":{"x":[1,2]}}"#) == .request(.ping, id: "p"))
    }

    // MARK: section 1: unknown types

    @Test func unknownTypeWithoutIdIsIgnored() {
        #expect(SignalingCodec.decode(#"{"type":"hologram","depth":3}"#) == .ignored(type: "hologram"))
    }

    @Test func unknownTypeWithIdIsAnsweredWith53003() throws {
        let verdict = SignalingCodec.decode(#"{"type":"hologram","id":"42"}"#)
        guard case .invalid(let id, let error, _) = verdict else {
            Issue.record("expected invalid, got \(verdict)")
            return
        }
        #expect(id == "42")
        #expect(error.code == .signalingIncomingMessageInvalid)
        #expect(error.code.rawValue == 53003)
    }

    // MARK: section 1: invalid frames, each with the id it can echo

    static let invalidFrames: [(frame: String, id: String?)] = [
        ("", nil),
        ("not json", nil),
        ("{", nil),
        (#"{"type":"ping""#, nil),
        ("[]", nil),
        (#"["type","ping"]"#, nil),
        (#""ping""#, nil),
        ("42", nil),
        ("null", nil),
        ("{}", nil),
        (#"{"id":"3"}"#, "3"),
        (#"{"type":7,"id":"3"}"#, "3"),
        (#"{"type":null,"id":"3"}"#, "3"),
        (#"{"type":"ping","id":7}"#, nil),
        (#"{"type":"ping","id":["a"]}"#, nil),
        (#"{"type":"publish","id":"4","tracks":[]}"#, "4"),
        (#"{"type":"publish","id":"4","sdp":1,"tracks":[]}"#, "4"),
        (#"{"type":"publish","id":"4","sdp":"x"}"#, "4"),
        (#"{"type":"publish","id":"4","sdp":"x","tracks":{}}"#, "4"),
        (#"{"type":"publish","id":"4","sdp":"x","tracks":["0"]}"#, "4"),
        (#"{"type":"publish","id":"4","sdp":"x","tracks":[{"mid":0,"name":"a","kind":"audio"}]}"#, "4"),
        (#"{"type":"publish","id":"4","sdp":"x","tracks":[{"mid":"0","kind":"audio"}]}"#, "4"),
        (#"{"type":"publish","id":"4","sdp":"x","tracks":[{"mid":"0","name":"a","kind":5}]}"#, "4"),
        (#"{"type":"publish","id":"4","sdp":"x","tracks":[{"mid":"0","name":"a","kind":"audio","enabled":"no"}]}"#, "4"),
        (#"{"type":"unpublish","id":"5"}"#, "5"),
        (#"{"type":"unpublish","id":"5","trackSid":null}"#, "5"),
        (#"{"type":"setTrackEnabled","id":"6","trackSid":"MT1"}"#, "6"),
        (#"{"type":"setTrackEnabled","id":"6","trackSid":"MT1","enabled":0}"#, "6"),
        (#"{"type":"setTrackEnabled","id":"6","trackSid":"MT1","enabled":"false"}"#, "6"),
        (#"{"type":"interruption","id":"7","kind":"screen","state":"began"}"#, "7"),
        (#"{"type":"interruption","id":"7","kind":"camera","state":"paused"}"#, "7"),
        (#"{"type":"interruption","id":"7","kind":"camera"}"#, "7"),
        (#"{"type":"interruption","id":"7","kind":"camera","state":"began","reason":5}"#, "7"),
        (#"{"type":"updateSubscriptions","id":"8"}"#, "8"),
        (#"{"type":"updateSubscriptions","id":"8","rules":[{"type":"maybe","all":true}]}"#, "8"),
        (#"{"type":"updateSubscriptions","id":"8","rules":[{"all":true}]}"#, "8"),
        (#"{"type":"updateSubscriptions","id":"8","rules":[{"type":"include"}]}"#, "8"),
        (#"{"type":"updateSubscriptions","id":"8","rules":[{"type":"include","all":"yes"}]}"#, "8"),
        (#"{"type":"updateSubscriptions","id":"8","rules":[{"type":"include","kind":"data"}]}"#, "8"),
        (#"{"type":"updateSubscriptions","id":"8","rules":[{"type":"include","publisher":1}]}"#, "8"),
        (#"{"type":"join","id":"9","rules":{"type":"include","all":true}}"#, "9"),
        (#"{"type":"join","id":"9","room":5}"#, "9"),
        (#"{"type":"join","id":"9","resume":true}"#, "9"),
        (#"{"type":"subscribeAnswer","id":"10"}"#, "10"),
        (#"{"type":"sendMessage","id":"11","contentType":"application/json"}"#, "11"),
        (#"{"type":"sendMessage","id":"11","content":{"k":1},"contentType":"application/json"}"#, "11"),
        (#"{"type":"sendMessage","id":"11","content":"1","contentType":"application/json","to":"bob"}"#, "11"),
        (#"{"type":"sendMessage","id":"11","content":"1","contentType":"application/json","to":["bob",2]}"#, "11"),
    ]

    @Test(arguments: invalidFrames)
    func invalidFrameIs53003WithItsId(frame: String, id: String?) {
        let verdict = SignalingCodec.decode(frame)
        guard case .invalid(let echoed, let error, let type) = verdict else {
            Issue.record("\(frame) decoded as \(verdict)")
            return
        }
        #expect(echoed == id)
        #expect(error.code == .signalingIncomingMessageInvalid)
        // The session closes the socket after a malformed join, so it needs the type.
        if frame.contains(#""type":"join""#) { #expect(type == "join", "\(frame)") }
    }

    @Test func errorMessagesNameTheField() {
        let verdict = SignalingCodec.decode(
            #"{"type":"publish","id":"4","sdp":"x","tracks":[{"mid":"0","name":"a","kind":"audio"},{"mid":"1","name":"b","kind":"video","priority":"urgent"}]}"#)
        guard case .invalid(_, let error, _) = verdict else {
            Issue.record("\(verdict)")
            return
        }
        #expect(error.message.contains("tracks[1].priority"))
        #expect(error.message.contains("urgent"), "\(error.message)")
    }

    @Test func frameSizeCapIs64KiB() {
        // {"type":"ping","pad":"…"} padded to exactly 65,536 bytes, then one more.
        let overhead = #"{"type":"ping","id":"p","pad":""}"#.utf8.count
        let atLimit = #"{"type":"ping","id":"p","pad":""# + String(repeating: "x", count: 65_536 - overhead) + #""}"#
        #expect(atLimit.utf8.count == 65_536)
        #expect(SignalingCodec.decode(atLimit) == .request(.ping, id: "p"))
        let over = #"{"type":"ping","id":"p","pad":""# + String(repeating: "x", count: 65_537 - overhead) + #""}"#
        guard case .invalid(let id, let error, _) = SignalingCodec.decode(over) else {
            Issue.record("a 65,537-byte frame was accepted")
            return
        }
        #expect(id == nil)
        #expect(error.code == .signalingIncomingMessageInvalid)
        // Multi-byte characters count as their UTF-8 bytes, not as characters.
        let wide = #"{"type":"ping","pad":""# + String(repeating: "é", count: 40_000) + #""}"#
        #expect(wide.count < 65_536 && wide.utf8.count > 65_536)
        #expect(SignalingCodec.decode(wide) != .request(.ping, id: nil))
    }

    @Test func deepNestingIsInvalidNotACrash() {
        let deep = #"{"type":"ping","x":"# + String(repeating: "[", count: 30_000) + String(repeating: "]", count: 30_000) + "}"
        #expect(deep.utf8.count <= 65_536)
        if case .invalid = SignalingCodec.decode(deep) {} else { Issue.record("deep nesting accepted") }
    }

    /// Every request type, each field with a wrong type, missing, or null
    /// where required: 53003, the request's id echoed, and the message
    /// naming the field by its path in the frame.
    static let wrongFields: [(frame: String, field: String)] = [
        (#"{"type":"join","id":"1","room":5}"#, "'room' must be a string"),
        (#"{"type":"join","id":"1","name":true}"#, "'name' must be a string"),
        (#"{"type":"join","id":"1","resume":[]}"#, "'resume' must be a string"),
        (#"{"type":"join","id":"1","rules":{}}"#, "'rules' must be an array"),
        (#"{"type":"join","id":"1","rules":[{"type":"include","all":"yes"}]}"#, "'rules[0].all' must be true or false"),
        (#"{"type":"publish","id":"1","tracks":[]}"#, "'sdp' is required"),
        (#"{"type":"publish","id":"1","sdp":null,"tracks":[]}"#, "'sdp' is required"),
        (#"{"type":"publish","id":"1","sdp":"x","tracks":["0"]}"#, "'tracks[0]' must be an object"),
        (#"{"type":"publish","id":"1","sdp":"x","tracks":[{"mid":0,"name":"a","kind":"audio"}]}"#, "'tracks[0].mid' must be a string"),
        (#"{"type":"publish","id":"1","sdp":"x","tracks":[{"mid":"0","kind":"audio"}]}"#, "'tracks[0].name' is required"),
        (#"{"type":"publish","id":"1","sdp":"x","tracks":[{"mid":"0","name":"a","kind":"audio","enabled":1}]}"#, "'tracks[0].enabled' must be true or false"),
        (#"{"type":"unpublish","id":"1","trackSid":7}"#, "'trackSid' must be a string"),
        (#"{"type":"setTrackEnabled","id":"1","trackSid":"MT1","enabled":"false"}"#, "'enabled' must be true or false"),
        (#"{"type":"setTrackEnabled","id":"1","enabled":false}"#, "'trackSid' is required"),
        (#"{"type":"interruption","id":"1","kind":"screen","state":"began"}"#, #"'kind' must be one of "camera", "audio""#),
        (#"{"type":"interruption","id":"1","kind":"camera","state":"paused"}"#, #"'state' must be one of "began", "ended""#),
        (#"{"type":"interruption","id":"1","kind":"camera","state":"began","reason":5}"#, "'reason' must be a string"),
        (#"{"type":"updateSubscriptions","id":"1"}"#, "'rules' is required"),
        (#"{"type":"updateSubscriptions","id":"1","rules":[{"type":"maybe","all":true}]}"#, #"'rules[0].type' must be one of "include", "exclude""#),
        (#"{"type":"updateSubscriptions","id":"1","rules":[{"type":"include","all":true},{"type":"include","kind":"data"}]}"#, #"'rules[1].kind' must be one of "audio", "video""#),
        (#"{"type":"updateSubscriptions","id":"1","rules":[{"type":"include","publisher":1}]}"#, "'rules[0].publisher' must be a string"),
        (#"{"type":"updateSubscriptions","id":"1","rules":[{"type":"include","all":false}]}"#, "'rules[0]' needs at least one of all, kind, publisher, track"),
        (#"{"type":"subscribeAnswer","id":"1","sdp":{}}"#, "'sdp' must be a string"),
        (#"{"type":"sendMessage","id":"1","content":{"k":1},"contentType":"application/json"}"#, "'content' must be a string"),
        (#"{"type":"sendMessage","id":"1","content":"1"}"#, "'contentType' is required"),
        (#"{"type":"sendMessage","id":"1","content":"1","contentType":"a","to":["bob",2]}"#, "'to[1]' must be a string"),
        (#"{"id":"1","type":7}"#, "'type' must be a string"),
        (#"{"id":"1"}"#, "'type' is required"),
    ]

    @Test(arguments: wrongFields)
    func wrongFieldTypesNameTheField(frame: String, field: String) {
        guard case .invalid(let id, let error, _) = SignalingCodec.decode(frame) else {
            Issue.record("\(frame) was accepted")
            return
        }
        #expect(id == "1")
        #expect(error.code == .signalingIncomingMessageInvalid)
        #expect(error.message == "Invalid signaling message: field \(field)", "\(frame)")
    }

    @Test func malformedFramesSayWhy() {
        for (frame, reason) in [("{", "not JSON"), ("[]", "not a JSON object"), (#"{"type":"ping","id":7}"#, "field 'id' must be a string")] {
            guard case .invalid(nil, let error, _) = SignalingCodec.decode(frame) else {
                Issue.record("\(frame)")
                continue
            }
            #expect(error.message == "Invalid signaling message: \(reason)", "\(frame)")
        }
        // A join whose id is not a string is still known as a join (refused, then closed).
        guard case .invalid(nil, _, let type) = SignalingCodec.decode(#"{"type":"join","id":7,"room":"r"}"#) else {
            Issue.record("a join with a numeric id was accepted")
            return
        }
        #expect(type == "join")
    }
}
