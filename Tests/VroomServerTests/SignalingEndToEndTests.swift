import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import VroomTesting

/// The control plane through a real `vroom-server --dev` process on loopback:
/// WebSocket clients join, publish, message, drop and resume (PROTOCOL.md
/// section 3), and every refused request gets its documented code.
extension ServerProcessTests {
@Suite struct SignalingEndToEndTests {
    final class Server: Sendable {
        let running: DevServerTests.RunningServer
        let port: Int
        let directory: URL

        init(_ extra: [String] = []) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("vroom-e2e-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            running = try DevServerTests.RunningServer(
                arguments: ["--dev", "--http-port", "0", "--rtc-port", "0", "--rtc-workers", "1",
                            "--db", directory.appendingPathComponent("vroom.sqlite").path] + extra)
            port = Int(try running.waitFor(#"http: listening on 127\.0\.0\.1:(\d+)"#))!
        }

        func stop() {
            running.stop()
            try? FileManager.default.removeItem(at: directory)
        }

        /// A token minted by `vroom-server token --dev` (the command people use).
        func token(_ identity: String, room: String? = nil, ttl: Int = 600) throws -> String {
            let process = Process()
            process.executableURL = try BuiltProduct.url(named: "vroom-server")
            process.arguments = ["token", "--dev", "--identity", identity, "--ttl", String(ttl)] + (room.map { ["--room", $0] } ?? [])
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            while process.isRunning { Thread.sleep(forTimeInterval: 0.01) }
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func client(_ identity: String, room: String? = nil) throws -> SignalingClient {
            SignalingClient(port: port, token: try token(identity, room: room))
        }
    }

    /// A publish offer a real client could send: BUNDLE, rtcp-mux, ICE
    /// credentials and a fingerprint (the server answers it for real; no
    /// media flows in these tests).
    static let offer = """
        v=0\r
        o=- 4611731400430051336 2 IN IP4 127.0.0.1\r
        s=-\r
        t=0 0\r
        a=group:BUNDLE 0 1\r
        m=audio 9 UDP/TLS/RTP/SAVPF 111\r
        c=IN IP4 0.0.0.0\r
        a=ice-ufrag:abcd\r
        a=ice-pwd:abcdefghijklmnopqrstuvwx\r
        a=fingerprint:sha-256 \(fingerprint)\r
        a=setup:actpass\r
        a=mid:0\r
        a=sendonly\r
        a=rtcp-mux\r
        a=rtpmap:111 opus/48000/2\r
        m=video 9 UDP/TLS/RTP/SAVPF 96\r
        c=IN IP4 0.0.0.0\r
        a=ice-ufrag:abcd\r
        a=ice-pwd:abcdefghijklmnopqrstuvwx\r
        a=fingerprint:sha-256 \(fingerprint)\r
        a=setup:actpass\r
        a=mid:1\r
        a=sendonly\r
        a=rtcp-mux\r
        a=rtpmap:96 VP8/90000\r

        """

    static let fingerprint = (0..<32).map { _ in "AB" }.joined(separator: ":")

    /// A client's answer to a server subscriber offer: every m-line
    /// accepted recvonly with its first format (no media flows here).
    static func answer(to offer: String) -> String {
        var lines = ["v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "t=0 0"]
        let sections = offer.components(separatedBy: "\r\nm=").dropFirst()
        let mids = sections.compactMap { section in
            section.components(separatedBy: "\r\n").first { $0.hasPrefix("a=mid:") }.map { String($0.dropFirst(6)) }
        }
        lines.append("a=group:BUNDLE " + mids.joined(separator: " "))
        for section in sections {
            let sectionLines = section.components(separatedBy: "\r\n")
            let media = sectionLines[0].split(separator: " ")
            let format = String(media[3])
            lines.append("m=\(media[0]) 9 \(media[2]) \(format)")
            lines.append("c=IN IP4 0.0.0.0")
            lines += ["a=ice-ufrag:wxyz", "a=ice-pwd:abcdefghijklmnopqrstuvwx", "a=fingerprint:sha-256 \(fingerprint)"]
            lines.append("a=setup:active")
            lines += sectionLines.filter { $0.hasPrefix("a=mid:") || $0.hasPrefix("a=rtpmap:\(format) ") }
            lines.append(sectionLines.contains("a=inactive") ? "a=inactive" : "a=recvonly")
            lines.append("a=rtcp-mux")
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    func joined(_ client: SignalingClient, room: String = "standup", id: String = "j") async throws -> [String: Any] {
        client.send(["type": "join", "id": id, "room": room])
        return try await client.next("joined")
    }

    @Test func twoParticipantsSeeEachOtherPublishAndMessage() async throws {
        let server = try Server()
        defer { server.stop() }
        let alice = try server.client("alice")
        let bob = try server.client("bob")

        let aliceJoined = try await joined(alice)
        #expect(aliceJoined["id"] as? String == "j")
        // No TURN configured: no ICE servers (PROTOCOL.md section 9).
        #expect((aliceJoined["iceServers"] as? [Any])?.isEmpty == true)
        let room = try #require(aliceJoined["room"] as? [String: Any])
        #expect((room["sid"] as? String)?.hasPrefix("RM") == true)
        #expect((room["sid"] as? String)?.count == 34)
        #expect(room["name"] as? String == "standup")
        let aliceSid = try #require((aliceJoined["participant"] as? [String: Any])?["sid"] as? String)
        #expect(aliceJoined["reconnectWindowSeconds"] as? Int == 30)

        let bobJoined = try await joined(bob)
        let others = try #require(bobJoined["participants"] as? [[String: Any]])
        #expect(others.map { $0["identity"] as? String } == ["alice"])
        let connected = try await alice.next("participantConnected")
        #expect((connected["participant"] as? [String: Any])?["identity"] as? String == "bob")

        // Publish: SIDs per mid; bob hears of the tracks and is offered them.
        alice.send([
            "type": "publish", "id": "p", "sdp": Self.offer,
            "tracks": [["mid": "0", "name": "mic", "kind": "audio"], ["mid": "1", "name": "camera", "kind": "video"]],
        ])
        let answer = try await alice.next("publishAnswer")
        #expect(answer["id"] as? String == "p")
        let tracks = try #require(answer["tracks"] as? [[String: Any]])
        #expect(tracks.map { $0["name"] as? String } == ["mic", "camera"])
        #expect(tracks.allSatisfy { ($0["sid"] as? String)?.hasPrefix("MT") == true })
        #expect((answer["sdp"] as? String)?.hasPrefix("v=0") == true)
        try await bob.next("trackPublished", index: 1)
        let offer = try await bob.next("subscribeOffer", where: { ($0["tracks"] as? [Any])?.count == 2 })
        let offered = try #require(offer["tracks"] as? [[String: Any]])
        #expect(Set(offered.map { $0["trackSid"] as? String }) == Set(tracks.map { $0["sid"] as? String }))
        #expect(offered.allSatisfy { $0["participantSid"] as? String == aliceSid })
        bob.send(["type": "subscribeAnswer", "sdp": Self.answer(to: try #require(offer["sdp"] as? String))])

        // Disable: bob is told, with no reason; no new offer (enable/disable changes no SDP).
        let camera = try #require(tracks.last?["sid"] as? String)
        alice.send(["type": "setTrackEnabled", "id": "d", "trackSid": camera, "enabled": false])
        try await alice.next("ok", where: { $0["id"] as? String == "d" })
        let disabled = try await bob.next("trackDisabled")
        #expect(disabled["trackSid"] as? String == camera)
        #expect(disabled["reason"] == nil)

        // Messages: bob receives, alice gets the SID; sequence numbers from 0.
        alice.send(["type": "sendMessage", "id": "m", "content": "{\"k\":1}", "contentType": "application/json"])
        let sent = try await alice.next("messageSent")
        #expect((sent["sid"] as? String)?.hasPrefix("ME") == true)
        let message = try await bob.next("message")
        #expect(message["content"] as? String == "{\"k\":1}")
        #expect(message["sequenceNumber"] as? Int == 0)
        #expect((message["from"] as? [String: Any])?["identity"] as? String == "alice")
        #expect(alice.count("message") == 0, "the sender never receives its own message")

        // Leave: bob sees alice go; alice's socket closes.
        alice.send(["type": "leave"])
        let gone = try await bob.next("participantDisconnected")
        #expect(gone["participantSid"] as? String == aliceSid)
        try await alice.waitClosed()
        await bob.close()
    }

    @Test func badInputGetsItsDocumentedAnswer() async throws {
        let server = try Server()
        defer { server.stop() }
        let client = try server.client("carol")

        client.sendRaw("{not json")
        var error = try await client.next("error")
        #expect(error["code"] as? Int == 53003)

        client.send(["type": "publish", "id": "early", "sdp": "v=0", "tracks": []])
        error = try await client.next("error", where: { $0["id"] as? String == "early" })
        #expect(error["code"] as? Int == 53003)

        client.send(["type": "sendMessage", "id": "msg", "content": "{}", "contentType": "application/json"])
        let failed = try await client.next("messageFailed")
        #expect(failed["code"] as? Int == 409)
        #expect(failed["reason"] as? String == "not-joined")

        client.send(["type": "somethingNew", "id": "u"])
        error = try await client.next("error", where: { $0["id"] as? String == "u" })
        #expect(error["code"] as? Int == 53003)
        client.send(["type": "somethingNewWithoutId"])

        client.sendRaw("{\"type\":\"ping\",\"pad\":\"" + String(repeating: "x", count: 70_000) + "\"}")
        error = try await client.next("error", index: 3)
        #expect(error["code"] as? Int == 53003)

        client.send(["type": "ping"])
        try await client.next("pong")

        _ = try await joined(client)
        client.send(["type": "unpublish", "id": "x", "trackSid": "MT00000000000000000000000000000000"])
        error = try await client.next("error", where: { $0["id"] as? String == "x" })
        #expect(error["code"] as? Int == 53300)

        // The node still works after all that.
        let other = try server.client("dave")
        _ = try await joined(other)
        await client.close()
        await other.close()
    }

    @Test func refusedJoinsCarryTheirCodeAndClose() async throws {
        let server = try Server()
        defer { server.stop() }

        let forged = SignalingClient(port: server.port, token: "not.a.jwt")
        forged.send(["type": "join", "id": "1", "room": "standup"])
        let invalid = try await forged.next("error")
        #expect(invalid["code"] as? Int == 20101)
        try await forged.waitClosed()

        let wrongRoom = SignalingClient(port: server.port, token: try server.token("erin", room: "other"))
        wrongRoom.send(["type": "join", "id": "1", "room": "standup"])
        let grants = try await wrongRoom.next("error")
        #expect(grants["code"] as? Int == 20106)
        try await wrongRoom.waitClosed()

        let badName = try server.client("frank")
        badName.send(["type": "join", "id": "1", "room": String(repeating: "r", count: 129)])
        let tooLong = try await badName.next("error")
        #expect(tooLong["code"] as? Int == 53101)
        try await badName.waitClosed()

        // A join with a field of the wrong type (section 7's profile) is refused as well.
        let badProfile = try server.client("gail")
        badProfile.send(["type": "join", "id": "2", "room": "standup", "bandwidthProfile": ["video": ["mode": "theatre"]]])
        let malformed = try await badProfile.next("error")
        #expect(malformed["code"] as? Int == 53003)
        #expect(malformed["id"] as? String == "2")
        try await badProfile.waitClosed()
    }

    @Test func duplicateIdentityDisconnectsTheOlderSession() async throws {
        let server = try Server()
        defer { server.stop() }
        let watcher = try server.client("watcher")
        _ = try await joined(watcher)
        let first = try server.client("gina")
        _ = try await joined(first)
        let second = try server.client("gina")
        _ = try await joined(second)
        let disconnected = try await first.next("disconnected")
        #expect(disconnected["code"] as? Int == 53205)
        try await first.waitClosed()
        try await watcher.next("participantDisconnected")
        try await watcher.next("participantConnected", index: 1)
        await second.close()
        await watcher.close()
    }

    @Test func aDroppedParticipantResumesWithinTheWindow() async throws {
        let server = try Server()
        defer { server.stop() }
        let watcher = try server.client("watcher")
        _ = try await joined(watcher)
        let hank = try server.client("hank")
        let first = try await joined(hank)
        let sid = try #require((first["participant"] as? [String: Any])?["sid"] as? String)
        let sessionToken = try #require(first["sessionToken"] as? String)

        await hank.close()  // no leave: a drop
        let reconnecting = try await watcher.next("participantReconnecting")
        #expect(reconnecting["participantSid"] as? String == sid)

        let again = try server.client("hank")
        again.send(["type": "join", "id": "r", "resume": sessionToken])
        let resumed = try await again.next("joined")
        #expect(resumed["resumed"] as? Bool == true)
        #expect((resumed["participant"] as? [String: Any])?["sid"] as? String == sid)
        #expect(resumed["sessionToken"] as? String != sessionToken, "each session token works once")
        try await watcher.next("participantReconnected")

        // The used token does not work twice.
        let replay = try server.client("hank")
        replay.send(["type": "join", "id": "r2", "resume": sessionToken])
        let late = try await replay.next("error")
        #expect(late["code"] as? Int == 53001)
        await again.close()
        await watcher.close()
    }

    /// The message limits are configurable (PROTOCOL.md 3.5): 16 bytes and
    /// 2 messages a window here.
    @Test func theMessageLimitsAreConfigurable() async throws {
        let server = try Server(["--max-message-bytes", "16", "--max-messages-per-window", "2"])
        defer { server.stop() }
        let alice = try server.client("alice")
        _ = try await joined(alice)
        func send(_ content: String, id: String) {
            alice.send(["type": "sendMessage", "id": id, "content": content, "contentType": "application/json"])
        }
        send(#"{"text":"seventeen b"}"#, id: "big")
        let tooBig = try await alice.next("messageFailed", where: { $0["id"] as? String == "big" })
        #expect(tooBig["code"] as? Int == 413)
        send(#"{"n":1}"#, id: "one")
        try await alice.next("messageSent", where: { $0["id"] as? String == "one" })
        send(#"{"n":2}"#, id: "two")
        try await alice.next("messageSent", where: { $0["id"] as? String == "two" })
        send(#"{"n":3}"#, id: "three")
        let limited = try await alice.next("messageFailed", where: { $0["id"] as? String == "three" })
        #expect(limited["code"] as? Int == 429)
        await alice.close()
    }

    /// A socket that never joined and goes silent gets 53002 as an `error`:
    /// `disconnected` is only for a session that had joined (section 1).
    @Test func aSilentSocketThatNeverJoinedGetsAnError53002() async throws {
        let server = try Server(["--silence-timeout", "1.5"])
        defer { server.stop() }
        let idle = try server.client("idle")
        let error = try await idle.next("error")
        #expect(error["code"] as? Int == 53002)
        try await idle.waitClosed()
        #expect(idle.count("disconnected") == 0)
    }

    @Test func aSilentClientIsDisconnectedWith53002() async throws {
        let server = try Server(["--silence-timeout", "1.5"])
        defer { server.stop() }
        let watcher = try server.client("watcher")
        let silent = try server.client("ivan")
        _ = try await joined(silent)
        _ = try await joined(watcher)
        // The watcher keeps talking; the other says nothing more.
        let pinger = Task {
            for _ in 0..<40 {
                watcher.send(["type": "ping"])
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
        let disconnected = try await silent.next("disconnected")
        #expect(disconnected["code"] as? Int == 53002)
        try await silent.waitClosed()
        try await watcher.next("participantReconnecting")
        #expect(watcher.count("disconnected") == 0)
        pinger.cancel()
        await watcher.close()
    }

    func publish(_ client: SignalingClient, mid: String = "0", name: String, kind: String = "audio") async throws {
        let codec = kind == "audio" ? "111 opus/48000/2" : "96 VP8/90000"
        let offer = """
            v=0\r
            o=- 1 2 IN IP4 127.0.0.1\r
            s=-\r
            t=0 0\r
            a=group:BUNDLE \(mid)\r
            m=\(kind) 9 UDP/TLS/RTP/SAVPF \(codec.prefix { $0 != " " })\r
            c=IN IP4 0.0.0.0\r
            a=ice-ufrag:abcd\r
            a=ice-pwd:abcdefghijklmnopqrstuvwx\r
            a=fingerprint:sha-256 \(Self.fingerprint)\r
            a=setup:actpass\r
            a=mid:\(mid)\r
            a=sendonly\r
            a=rtcp-mux\r
            a=rtpmap:\(codec)\r

            """
        client.send(["type": "publish", "id": "p-\(name)", "sdp": offer, "tracks": [["mid": mid, "name": name, "kind": kind]]])
        try await client.next("publishAnswer", where: { $0["id"] as? String == "p-\(name)" })
    }

    @Test func noSecondOfferBeforeTheAnswerAndAResumeGetsTheOfferInFlight() async throws {
        let server = try Server()
        defer { server.stop() }
        let bob = try server.client("bob")
        let first = try await joined(bob)
        let sessionToken = try #require(first["sessionToken"] as? String)
        let alice = try server.client("alice")
        _ = try await joined(alice)
        let carol = try server.client("carol")
        _ = try await joined(carol)

        try await publish(alice, name: "alice-mic")
        let offer1 = try await bob.next("subscribeOffer")
        #expect((offer1["tracks"] as? [Any])?.count == 1)

        // Carol publishes while bob's first offer is unanswered: he hears of
        // the track, but gets no second offer yet.
        try await publish(carol, name: "carol-mic")
        try await bob.next("trackPublished", index: 1)
        try await Task.sleep(for: .milliseconds(300))
        #expect(bob.count("subscribeOffer") == 1)

        // Bob drops and resumes: the offer in flight is sent again, alone.
        await bob.close()
        let again = try server.client("bob")
        again.send(["type": "join", "id": "r", "resume": sessionToken])
        try await again.next("joined")
        let resent = try await again.next("subscribeOffer")
        #expect(resent["sdp"] as? String == offer1["sdp"] as? String)

        // The answer releases the next offer, with both tracks on new mids.
        again.send(["type": "subscribeAnswer", "sdp": Self.answer(to: try #require(resent["sdp"] as? String))])
        let offer2 = try await again.next("subscribeOffer", index: 1)
        let tracks = try #require(offer2["tracks"] as? [[String: Any]])
        #expect(tracks.count == 2)
        #expect(Set(tracks.compactMap { $0["mid"] as? String }).count == 2)
        await again.close()
        await alice.close()
        await carol.close()
    }

    /// Readiness, not liveness, reads the full node (PROTOCOL.md section 6).
    @Test func aFullNodeAnswers53006AndItsReadinessIs503() async throws {
        let server = try Server(["--max-participants-per-node", "1"])
        defer { server.stop() }
        let first = try server.client("kim")
        _ = try await joined(first)
        let health = URL(string: "http://127.0.0.1:\(server.port)/readyz")!
        let (_, response) = try await URLSession.shared.data(from: health)
        #expect((response as? HTTPURLResponse)?.statusCode == 503)
        let (_, alive) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(server.port)/healthz")!)
        #expect((alive as? HTTPURLResponse)?.statusCode == 200)

        let second = try server.client("lee")
        second.send(["type": "join", "id": "1", "room": "other"])
        let busy = try await second.next("error")
        #expect(busy["code"] as? Int == 53006)
        try await second.waitClosed()

        first.send(["type": "leave"])
        try await first.waitClosed()
        var status = 0
        for _ in 0..<50 where status != 200 {
            let (_, again) = try await URLSession.shared.data(from: health)
            status = (again as? HTTPURLResponse)?.statusCode ?? 0
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(status == 200)
    }

    @Test func anUnansweredOfferIsSentAgain() async throws {
        let server = try Server(["--offer-resend", "1"])
        defer { server.stop() }
        let bob = try server.client("bob")
        _ = try await joined(bob)
        let alice = try server.client("alice")
        _ = try await joined(alice)
        try await publish(alice, name: "alice-mic")
        let first = try await bob.next("subscribeOffer")
        // Bob does not answer: the same offer comes again after the interval.
        let again = try await bob.next("subscribeOffer", index: 1)
        #expect(again["sdp"] as? String == first["sdp"] as? String)
        bob.send(["type": "subscribeAnswer", "sdp": Self.answer(to: try #require(first["sdp"] as? String))])
        let count = bob.count("subscribeOffer")
        try await Task.sleep(for: .milliseconds(2500))
        #expect(bob.count("subscribeOffer") == count, "an answered offer is not sent again")
        await bob.close()
        await alice.close()
    }
}
}
