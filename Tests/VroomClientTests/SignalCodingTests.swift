import Foundation
import Testing

@testable import VroomClient

/// The SDK's signaling JSON in both directions (PROTOCOL.md section 3).
/// Every server message of 3.x with a numeric field is decoded with 0 and
/// with 1 in it (and 2 and a large code): JSONSerialization on Linux read 0
/// and 1 as booleans, so a networkQuality level 0 or 1 was dropped and a
/// sequenceNumber 1 read 0. The messages without numbers decode too.
@Suite struct SignalCodingTests {
    static let sid = "PA0123456789abcdef0123456789abcdef"

    @Test(arguments: [0, 1, 2, 53205])
    func joinedReadsReconnectWindow(_ n: Int) throws {
        let joined = try ServerSignal(json: """
            {"type":"joined","id":"1","room":{"sid":"RMx","name":"standup","maxParticipants":\(n)},
             "participant":{"sid":"PAme","identity":"alice"},
             "participants":[{"sid":"PAbob","identity":"bob","state":"connected",
                              "tracks":[{"sid":"MTcam","name":"camera","kind":"video","enabled":false}]}],
             "sessionToken":"tok","reconnectWindowSeconds":\(n),"iceServers":[]}
            """)
        guard case .joined(let j) = joined else { Issue.record("joined: \(joined)"); return }
        #expect(j.reconnectWindowSeconds == n)
        #expect(j.id == "1" && j.roomSid == "RMx" && j.roomName == "standup" && j.participantSid == "PAme")
        #expect(j.identity == "alice" && j.sessionToken == "tok" && j.resumed == false)
        #expect(j.participants == [.init(sid: "PAbob", identity: "bob", state: "connected", tracks: [.init(sid: "MTcam", name: "camera", kind: .video, enabled: false)])])
    }

    @Test(arguments: [0, 1, 2, 53205])
    func errorReadsCode(_ n: Int) throws {
        let error = try ServerSignal(json: #"{"type":"error","id":"3","code":\#(n),"message":"no"}"#)
        guard case .error(let id, let code, let text) = error else { Issue.record("error: \(error)"); return }
        #expect(id == "3" && code == n && text == "no")
    }

    @Test(arguments: [0, 1, 2, 53205])
    func messageFailedReadsCode(_ n: Int) throws {
        let failed = try ServerSignal(json: #"{"type":"messageFailed","id":"7","code":\#(n),"reason":"rate-limited"}"#)
        guard case .messageFailed(let fid, let fcode, let reason) = failed else { Issue.record("messageFailed: \(failed)"); return }
        #expect(fid == "7" && fcode == n && reason == "rate-limited")
    }

    @Test(arguments: [0, 1, 2, 53205])
    func messageReadsSequenceNumber(_ n: Int) throws {
        let message = try ServerSignal(json: """
            {"type":"message","sid":"MEx","from":{"sid":"\(Self.sid)","identity":"alice"},
             "content":"{\\"k\\":1}","contentType":"application/json","sequenceNumber":\(n)}
            """)
        #expect(message.roomMessage == RoomMessage(
            sid: "MEx", fromParticipantSid: Self.sid, fromIdentity: "alice", content: #"{"k":1}"#,
            contentType: "application/json", sequenceNumber: n))
    }

    @Test(arguments: [0, 1, 2, 53205])
    func networkQualityReadsLevel(_ n: Int) throws {
        let quality = try ServerSignal(json: #"{"type":"networkQuality","participantSid":"\#(Self.sid)","level":\#(n),"warnings":["high-rtt"]}"#)
        guard case .networkQuality(let participant, let level, let warnings) = quality else {
            Issue.record("networkQuality: \(quality)")
            return
        }
        #expect(participant == Self.sid && level == n && warnings == ["high-rtt"])
    }

    @Test(arguments: [0, 1, 2, 53205])
    func disconnectedReadsCode(_ n: Int) throws {
        let disconnected = try ServerSignal(json: #"{"type":"disconnected","code":\#(n),"message":"bye"}"#)
        guard case .disconnected(let dcode, let dmessage) = disconnected else { Issue.record("disconnected: \(disconnected)"); return }
        #expect(dcode == n && dmessage == "bye")
    }

    @Test func messagesWithoutNumbersDecode() throws {
        let p = Self.sid
        let cases: [(String, String)] = [
            (#"{"type":"publishAnswer","id":"2","sdp":"v=0","tracks":[{"mid":"0","sid":"MTa","name":"mic","kind":"audio"}]}"#,
             #"publishAnswer(id: Optional("2"), sdp: "v=0", tracks: [VroomClient.ServerSignal.PublishedTrack(mid: "0", sid: "MTa", name: "mic")])"#),
            (#"{"type":"subscribeOffer","sdp":"v=0","tracks":[{"mid":"0","trackSid":"MTa","participantSid":"PAb","name":"cam","kind":"video"}]}"#,
             #"subscribeOffer(sdp: "v=0", tracks: [VroomClient.ServerSignal.SubscribedTrack(mid: "0", trackSid: "MTa", participantSid: "PAb", name: "cam", kind: Packets.MediaKind.video)])"#),
            (#"{"type":"ok","id":"4"}"#, #"ok(id: "4")"#),
            (#"{"type":"pong","id":"5"}"#, "pong"),
            (#"{"type":"participantConnected","participant":{"sid":"\#(p)","identity":"bob"}}"#,
             #"participantConnected(VroomClient.ServerSignal.Participant(sid: "\#(p)", identity: "bob", state: "connected", tracks: []))"#),
            (#"{"type":"participantDisconnected","participantSid":"\#(p)"}"#, #"participantDisconnected(sid: "\#(p)")"#),
            (#"{"type":"participantReconnecting","participantSid":"\#(p)"}"#, #"participantReconnecting(sid: "\#(p)")"#),
            (#"{"type":"participantReconnected","participantSid":"\#(p)"}"#, #"participantReconnected(sid: "\#(p)")"#),
            (#"{"type":"trackPublished","participantSid":"\#(p)","track":{"sid":"MTa","name":"mic","kind":"audio","enabled":true}}"#,
             #"trackPublished(participantSid: "\#(p)", VroomClient.ServerSignal.Track(sid: "MTa", name: "mic", kind: Packets.MediaKind.audio, enabled: true))"#),
            (#"{"type":"trackUnpublished","participantSid":"\#(p)","trackSid":"MTa"}"#, #"trackUnpublished(participantSid: "\#(p)", trackSid: "MTa")"#),
            (#"{"type":"trackEnabled","participantSid":"\#(p)","trackSid":"MTa"}"#, #"trackEnabled(participantSid: "\#(p)", trackSid: "MTa", reason: nil)"#),
            (#"{"type":"trackDisabled","participantSid":"\#(p)","trackSid":"MTa","reason":"interrupted"}"#,
             #"trackDisabled(participantSid: "\#(p)", trackSid: "MTa", reason: Optional("interrupted"))"#),
            (#"{"type":"messageSent","id":"7","sid":"MEx"}"#, #"messageSent(id: Optional("7"), sid: "MEx")"#),
            (#"{"type":"dominantSpeaker","participantSid":null}"#, "dominantSpeaker(participantSid: nil)"),
            (#"{"type":"dominantSpeaker","participantSid":"\#(p)"}"#, #"dominantSpeaker(participantSid: Optional("\#(p)"))"#),
            (#"{"type":"redirect","url":"ws://127.0.0.1:1/v1/signal"}"#, #"redirect(url: "ws://127.0.0.1:1/v1/signal")"#),
            (#"{"type":"reconnect","url":"wss://node2.example:7880/v1/signal"}"#,
             #"reconnect(url: "wss://node2.example:7880/v1/signal")"#),
            (#"{"type":"somethingNew","level":1}"#, #"unknown(type: "somethingNew")"#),
        ]
        for (json, expected) in cases {
            #expect(String(describing: try ServerSignal(json: json)) == expected, "\(json)")
        }
    }

    /// `redirect` and `reconnect` (PROTOCOL.md 8) without a URL, or with
    /// one that is not text, are refused: following them would send the
    /// session nowhere.
    @Test func nodeURLMessagesNeedTheirURL() {
        for type in ["redirect", "reconnect"] {
            for json in [#"{"type":"\#(type)"}"#, #"{"type":"\#(type)","url":7880}"#, #"{"type":"\#(type)","url":null}"#] {
                do {
                    let signal = try ServerSignal(json: json)
                    Issue.record("\(json) decoded as \(signal)")
                } catch {
                    #expect(error.description.contains("url"), "\(json): \(error)")
                }
            }
        }
    }

    @Test func malformedFramesAreRefusedWithTheField() {
        #expect(throws: ServerSignal.Malformed.self) { try ServerSignal(json: "[1]") }
        #expect(throws: ServerSignal.Malformed.self) { try ServerSignal(json: #"{"kind":"x"}"#) }
        do {
            _ = try ServerSignal(json: #"{"type":"networkQuality","participantSid":"PAx","level":"high"}"#)
            Issue.record("a string level was accepted")
        } catch {
            #expect(error.description.contains("level"))
        }
        #expect(throws: ServerSignal.Malformed.self) { try ServerSignal(json: #"{"type":"networkQuality","participantSid":"PAx","level":true}"#) }
    }

    @Test func requestsEncodeAsTheProtocolWritesThem() {
        let cases: [(ClientSignal, String)] = [
            (.join(id: "1", room: "standup", resume: nil, subscribeAll: true),
             #"{"id":"1","room":"standup","rules":[{"all":true,"type":"include"}],"type":"join"}"#),
            (.join(id: "1", room: nil, resume: "tok", subscribeAll: false),
             #"{"id":"1","resume":"tok","rules":[{"all":true,"type":"exclude"}],"type":"join"}"#),
            (.publish(id: "2", sdp: "v=0", tracks: [.init(mid: "0", name: "mic", kind: .audio, enabled: false)]),
             #"{"id":"2","sdp":"v=0","tracks":[{"enabled":false,"kind":"audio","mid":"0","name":"mic"}],"type":"publish"}"#),
            (.subscribeAnswer(sdp: "v=0"), #"{"sdp":"v=0","type":"subscribeAnswer"}"#),
            (.setTrackEnabled(id: "3", trackSid: "MTa", enabled: true), #"{"enabled":true,"id":"3","trackSid":"MTa","type":"setTrackEnabled"}"#),
            (.interruption(id: "4", kind: "audio", began: true, reason: "phoneCall"),
             #"{"id":"4","kind":"audio","reason":"phoneCall","state":"began","type":"interruption"}"#),
            (.interruption(id: "5", kind: "camera", began: false, reason: "ignored when it ends"),
             #"{"id":"5","kind":"camera","state":"ended","type":"interruption"}"#),
            (.restartIce(id: "6"), #"{"id":"6","type":"restartIce"}"#),
            (.sendMessage(id: "7", content: #"{"k":1}"#, contentType: "application/json", to: ["bob"]),
             #"{"content":"{\"k\":1}","contentType":"application/json","id":"7","to":["bob"],"type":"sendMessage"}"#),
            (.sendMessage(id: "8", content: "{}", contentType: "application/json", to: nil),
             #"{"content":"{}","contentType":"application/json","id":"8","type":"sendMessage"}"#),
            (.ping, #"{"type":"ping"}"#),
            (.leave, #"{"type":"leave"}"#),
        ]
        for (signal, expected) in cases {
            #expect(signal.text == expected)
        }
    }
}

extension ServerSignal {
    fileprivate var roomMessage: RoomMessage? {
        if case .message(let message) = self { message } else { nil }
    }
}
