import AccessTokens
import Foundation
import Packets
import Signaling
import Testing
import VroomTestPeer
import WebRTC

/// Every code of PROTOCOL.md section 4 that the server raises on the
/// signaling socket, through a real `vroom-server --dev` process, one row
/// per code (issue 11, item 5). Codes tested over the socket elsewhere:
/// 20101, 20106, 53003, 53101 (SignalingEndToEndTests: refused joins, bad
/// input), 53001, 53002, 53006, 53205 (SignalingEndToEndTests), 53105
/// (SignalingLoadTests), 53118, 53216 (AdminRESTEndToEndTests), 53300
/// (SignalingEndToEndTests). REST-only codes are tested in AdminAPITests.
/// 53401 (the server cannot create its side) has no client input that
/// reaches it: any description the server cannot use is refused first as
/// 53403. MediaPlaneServerFailureTests provoke it inside a real plane;
/// SignalingSession sends it like the others (`negotiationError`).
extension ServerProcessTests {
@Suite struct ErrorCodesEndToEndTests {
    static let devIssuer = AccessTokenIssuer(apiKey: "devkey", apiSecret: "devsecret")

    /// A refused join: the token or the `join` itself is wrong.
    struct RefusedJoin: Sendable {
        var code: Int
        var why: String
        var token: @Sendable () async throws -> String
        var room: String? = "standup"
        var testDescription: String { "\(code) \(why)" }
    }

    static let refusedJoins: [RefusedJoin] = [
        RefusedJoin(code: 20103, why: "unknown API key") {
            try await AccessTokenIssuer(apiKey: "otherkey", apiSecret: "devsecret").sign(identity: "a")
        },
        RefusedJoin(code: 20104, why: "expired") {
            try await devIssuer.sign(identity: "a", ttl: 60, now: Date().addingTimeInterval(-3600))
        },
        RefusedJoin(code: 20105, why: "not yet valid") {
            try await devIssuer.sign(identity: "a", notBefore: Date().addingTimeInterval(3600))
        },
        RefusedJoin(code: 20107, why: "signature does not verify") {
            try await AccessTokenIssuer(apiKey: "devkey", apiSecret: "not-the-secret").sign(identity: "a")
        },
        RefusedJoin(code: 53100, why: "no room in join or token", token: { try await devIssuer.sign(identity: "a") }, room: nil),
        RefusedJoin(code: 53102, why: "control character in the room name", token: { try await devIssuer.sign(identity: "a") }, room: "a\u{7}b"),
        RefusedJoin(
            code: 53106, why: "a room SID that does not exist", token: { try await devIssuer.sign(identity: "a") },
            room: "RM" + String(repeating: "0", count: 32)),
        RefusedJoin(code: 53200, why: "empty identity") { try await devIssuer.sign(identity: "") },
        RefusedJoin(code: 53201, why: "identity over 128") { try await devIssuer.sign(identity: String(repeating: "i", count: 129)) },
        RefusedJoin(code: 53202, why: "control character in the identity") { try await devIssuer.sign(identity: "a\u{1}b") },
    ]

    /// One server for every row: each is a fresh socket.
    @Test func aRefusedJoinCarriesItsCodeAndCloses() async throws {
        let server = try SignalingEndToEndTests.Server()
        defer { server.stop() }
        for row in Self.refusedJoins {
            let client = SignalingClient(port: server.port, token: try await row.token())
            var join: [String: Any] = ["type": "join", "id": "j"]
            if let room = row.room { join["room"] = room }
            client.send(join)
            let error = try await client.next("error")
            #expect(error["code"] as? Int == row.code, "\(row.testDescription): \(error)")
            #expect(error["id"] as? String == "j")
            try await client.waitClosed()
        }
    }

    /// `ping` is answered with `pong` echoing the `id`, before and after
    /// `join` (PROTOCOL.md sections 1 and 3.6); without an `id`, none.
    @Test func pongEchoesThePingsID() async throws {
        let server = try SignalingEndToEndTests.Server()
        defer { server.stop() }
        let client = try server.client("pinger")
        client.send(["type": "ping", "id": "before-join"])
        let early = try await client.next("pong")
        #expect(early["id"] as? String == "before-join")
        client.send(["type": "join", "id": "j", "room": "pings"])
        try await client.next("joined")
        client.send(["type": "ping", "id": "after-join"])
        let late = try await client.next("pong", index: 1)
        #expect(late["id"] as? String == "after-join")
        client.send(["type": "ping"])
        let bare = try await client.next("pong", index: 2)
        #expect(bare["id"] == nil)
        await client.close()
    }

    // MARK: - Requests of a joined participant

    /// One sending m-line per track, BUNDLEd, with ICE and a fingerprint.
    static func offer(_ lines: [(mid: String, kind: String, codec: String)], extra: String = "") -> String {
        var sdp = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE \(lines.map(\.mid).joined(separator: " "))\r\n"
        for line in lines {
            let pt = line.codec.prefix { $0 != " " }
            sdp += "m=\(line.kind) 9 UDP/TLS/RTP/SAVPF \(pt)\r\nc=IN IP4 0.0.0.0\r\n"
            sdp += "a=ice-ufrag:abcd\r\na=ice-pwd:abcdefghijklmnopqrstuvwx\r\n"
            sdp += "a=fingerprint:sha-256 \(SignalingEndToEndTests.fingerprint)\r\na=setup:actpass\r\n"
            sdp += "a=mid:\(line.mid)\r\na=sendonly\r\na=rtcp-mux\r\na=rtpmap:\(line.codec)\r\n\(extra)"
        }
        return sdp
    }

    static let opus = "111 opus/48000/2"

    /// A publish request and the code its `error` must carry.
    struct RefusedPublish: Sendable {
        var code: Int
        var why: String
        var sdp: String
        var tracks: [[String: String]]
        var testDescription: String { "\(code) \(why)" }
    }

    static let refusedPublishes: [RefusedPublish] = [
        RefusedPublish(
            code: 53203, why: "17 publications",
            sdp: offer((0..<17).map { (mid: String($0), kind: "audio", codec: opus) }),
            tracks: (0..<17).map { ["mid": String($0), "name": "mic\($0)", "kind": "audio"] }),
        RefusedPublish(
            code: 53300, why: "no tracks entry for a sending m-line", sdp: offer([("0", "audio", opus)]), tracks: []),
        RefusedPublish(
            code: 53300, why: "a kind that is neither audio nor video", sdp: offer([("0", "audio", opus)]),
            tracks: [["mid": "0", "name": "mic", "kind": "data"]]),
        RefusedPublish(
            code: 53301, why: "blank track name", sdp: offer([("0", "audio", opus)]),
            tracks: [["mid": "0", "name": "  ", "kind": "audio"]]),
        RefusedPublish(
            code: 53302, why: "track name over 128", sdp: offer([("0", "audio", opus)]),
            tracks: [["mid": "0", "name": String(repeating: "n", count: 129), "kind": "audio"]]),
        RefusedPublish(
            code: 53304, why: "two tracks with one name", sdp: offer([("0", "audio", opus), ("1", "audio", opus)]),
            tracks: [["mid": "0", "name": "mic", "kind": "audio"], ["mid": "1", "name": "mic", "kind": "audio"]]),
        RefusedPublish(
            code: 53403, why: "a video track on an audio m-line", sdp: offer([("0", "audio", opus)]),
            tracks: [["mid": "0", "name": "camera", "kind": "video"]]),
        RefusedPublish(
            code: 53403, why: "an offer that does not parse", sdp: "v=0\r\nthis is not SDP\r\n",
            tracks: [["mid": "0", "name": "mic", "kind": "audio"]]),
        RefusedPublish(
            code: 53403, why: "a hostile offer (no a=rtcp-mux)",
            sdp: offer([("0", "audio", opus)]).replacingOccurrences(of: "a=rtcp-mux\r\n", with: ""),
            tracks: [["mid": "0", "name": "mic", "kind": "audio"]]),
        RefusedPublish(
            code: 53403, why: "an offer without BUNDLE",
            sdp: offer([("0", "audio", opus)]).replacingOccurrences(of: "a=group:BUNDLE 0\r\n", with: ""),
            tracks: [["mid": "0", "name": "mic", "kind": "audio"]]),
        RefusedPublish(
            code: 53403, why: "one SSRC on two m-lines",
            sdp: offer([("0", "audio", opus), ("1", "audio", opus)], extra: "a=ssrc:1111 cname:x\r\n"),
            tracks: [["mid": "0", "name": "mic", "kind": "audio"], ["mid": "1", "name": "mic2", "kind": "audio"]]),
        RefusedPublish(
            code: 53404, why: "audio without Opus", sdp: offer([("0", "audio", "0 PCMU/8000")]),
            tracks: [["mid": "0", "name": "mic", "kind": "audio"]]),
    ]

    /// Each refused publish changes nothing: a good one afterwards gets its
    /// answer, and the watcher heard of that track only. One server, a
    /// room per row.
    @Test func aRefusedPublishCarriesItsCode() async throws {
        let server = try SignalingEndToEndTests.Server()
        defer { server.stop() }
        for (index, row) in Self.refusedPublishes.enumerated() {
            let room = "room-\(index)"
            let watcher = try server.client("watcher")
            watcher.send(["type": "join", "id": "j", "room": room])
            try await watcher.next("joined")
            let client = try server.client("publisher")
            client.send(["type": "join", "id": "j", "room": room])
            try await client.next("joined")
            client.send(["type": "publish", "id": "bad", "sdp": row.sdp, "tracks": row.tracks])
            let error = try await client.next("error", where: { $0["id"] as? String == "bad" })
            #expect(error["code"] as? Int == row.code, "\(row.testDescription): \(error)")
            #expect(client.count("publishAnswer") == 0)

            client.send([
                "type": "publish", "id": "good", "sdp": Self.offer([("0", "audio", Self.opus)]),
                "tracks": [["mid": "0", "name": "mic", "kind": "audio"]],
            ])
            try await client.next("publishAnswer", where: { $0["id"] as? String == "good" })
            try await watcher.next("trackPublished")
            try await Task.sleep(for: .milliseconds(100))
            #expect(watcher.count("trackPublished") == 1, "\(row.testDescription)")
            await client.close()
            await watcher.close()
        }
    }

    /// The 53203 limit is configurable (PROTOCOL.md section 4): with
    /// `--max-tracks 2`, three publications are refused and two are taken.
    @Test func theTrackLimitIsConfigurable() async throws {
        let server = try SignalingEndToEndTests.Server(["--max-tracks", "2"])
        defer { server.stop() }
        let client = try server.client("publisher")
        client.send(["type": "join", "id": "j", "room": "two-tracks"])
        try await client.next("joined")
        func publish(_ count: Int, id: String) {
            client.send([
                "type": "publish", "id": id,
                "sdp": Self.offer((0..<count).map { (mid: String($0), kind: "audio", codec: Self.opus) }),
                "tracks": (0..<count).map { ["mid": String($0), "name": "mic\($0)", "kind": "audio"] },
            ])
        }
        publish(3, id: "three")
        let error = try await client.next("error", where: { $0["id"] as? String == "three" })
        #expect(error["code"] as? Int == 53203)
        publish(2, id: "two")
        try await client.next("publishAnswer", where: { $0["id"] as? String == "two" })
        await client.close()
    }

    /// Media failures reach the participant as an `error` without `id`
    /// (PROTOCOL.md 3.7): a real DTLS peer whose certificate does not match
    /// the fingerprint of its offer (53407), and one that stops its
    /// consent checks (53405, after the 2 s consent timeout given here).
    @Test func mediaFailuresReachTheParticipant() async throws {
        let server = try SignalingEndToEndTests.Server(["--consent-timeout", "2"])
        defer { server.stop() }
        let tracks = [["mid": "0", "name": "mic", "kind": "audio"], ["mid": "1", "name": "camera", "kind": "video"]]

        let forger = try server.client("forger")
        forger.send(["type": "join", "id": "j", "room": "media"])
        try await forger.next("joined")
        let forged = try TestPeer(ice: .random())
        let forgedOffer = forged.publishOffer(audioSSRC: SSRC(1111), videoSSRC: SSRC(2222))
            .replacingOccurrences(of: forged.certificate.fingerprint, with: SignalingEndToEndTests.fingerprint)
        forger.send(["type": "publish", "id": "p", "sdp": forgedOffer, "tracks": tracks])
        let forgedAnswer = try #require(try await forger.next("publishAnswer")["sdp"] as? String)
        try forged.connect(serverSDP: forgedAnswer, dtlsRole: .client)
        await TestPeer.pump([forged], timeout: .seconds(15)) { forger.count("error") > 0 }
        let dtls = try await forger.next("error", timeout: 1)
        #expect(dtls["code"] as? Int == 53407, "\(dtls)")
        #expect(dtls["id"] == nil)

        let quiet = try server.client("quiet")
        quiet.send(["type": "join", "id": "j", "room": "media"])
        try await quiet.next("joined")
        let peer = try TestPeer(ice: .random())
        quiet.send(["type": "publish", "id": "p", "sdp": peer.publishOffer(audioSSRC: SSRC(3333), videoSSRC: SSRC(4444)), "tracks": tracks])
        let answer = try #require(try await quiet.next("publishAnswer")["sdp"] as? String)
        try peer.connect(serverSDP: answer, dtlsRole: .client)
        let connected = await TestPeer.pump([peer], timeout: .seconds(15)) { peer.isConnected }
        try #require(connected, "the peer's DTLS-SRTP did not come up")
        #expect(quiet.count("error") == 0)
        peer.silent = true
        await TestPeer.pump([peer], timeout: .seconds(15)) { quiet.count("error") > 0 }
        let consent = try await quiet.next("error", timeout: 1)
        #expect(consent["code"] as? Int == 53405, "\(consent)")
        #expect(consent["id"] == nil)
        await forger.close()
        await quiet.close()
    }

    /// A `subscribeAnswer` the server cannot apply is 53403 (PROTOCOL.md
    /// section 4); the offer stays in flight, and a good answer still works.
    @Test func aSubscribeAnswerTheServerCannotApplyIs53403() async throws {
        let server = try SignalingEndToEndTests.Server()
        defer { server.stop() }
        let bob = try server.client("bob")
        bob.send(["type": "join", "id": "j", "room": "standup"])
        try await bob.next("joined")

        // No offer in flight yet.
        bob.send(["type": "subscribeAnswer", "id": "early", "sdp": "v=0\r\n"])
        let early = try await bob.next("error", where: { $0["id"] as? String == "early" })
        #expect(early["code"] as? Int == 53403)

        let alice = try server.client("alice")
        alice.send(["type": "join", "id": "j", "room": "standup"])
        try await alice.next("joined")
        alice.send([
            "type": "publish", "id": "p", "sdp": Self.offer([("0", "audio", Self.opus)]),
            "tracks": [["mid": "0", "name": "mic", "kind": "audio"]],
        ])
        let offer = try #require(try await bob.next("subscribeOffer")["sdp"] as? String)
        let good = SignalingEndToEndTests.answer(to: offer)

        let bad: [(String, String)] = [
            ("unparsable", "v=0\r\nnonsense\r\n"),
            ("no rtcp-mux", good.replacingOccurrences(of: "a=rtcp-mux\r\n", with: "")),
            ("a=setup:actpass in an answer", good.replacingOccurrences(of: "a=setup:active", with: "a=setup:actpass")),
        ]
        for (index, (why, sdp)) in bad.enumerated() {
            bob.send(["type": "subscribeAnswer", "id": "bad\(index)", "sdp": sdp])
            let error = try await bob.next("error", where: { $0["id"] as? String == "bad\(index)" })
            #expect(error["code"] as? Int == 53403, "\(why): \(error)")
        }
        bob.send(["type": "subscribeAnswer", "id": "good", "sdp": good])
        try await bob.next("ok", where: { $0["id"] as? String == "good" })
        await alice.close()
        await bob.close()
    }
}
}
