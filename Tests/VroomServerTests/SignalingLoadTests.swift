import AccessTokens
import Foundation
import Signaling
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A burst the node must absorb (issue: "200 joins within 2 s plus 50
/// malformed frames"): every request gets its documented answer, and
/// afterwards the node is healthy and a normal join works.
extension ServerProcessTests {
@Suite struct SignalingLoadTests {
    @Test func twoHundredJoinsAndFiftyMalformedFrames() async throws {
        let server = try SignalingEndToEndTests.Server()
        defer { server.stop() }
        let issuer = AccessTokenIssuer(apiKey: "devkey", apiSecret: "devsecret")

        // 200 joins across 4 rooms of 50 (the default maximum), sent within 2 s.
        var clients: [SignalingClient] = []
        for index in 0..<200 {
            let token = try await issuer.sign(identity: "load-\(index)", room: nil, ttl: 600, now: Date())
            clients.append(SignalingClient(port: server.port, token: token))
        }
        let started = Date()
        for (index, client) in clients.enumerated() {
            client.send(["type": "join", "id": "j\(index)", "room": "load-\(index % 4)"])
        }
        #expect(Date().timeIntervalSince(started) < 2, "the joins were sent within 2 s")

        // 50 malformed frames on one more session.
        let noisy = SignalingClient(port: server.port, token: try await issuer.sign(identity: "noisy", room: nil, ttl: 600, now: Date()))
        for index in 0..<50 {
            switch index % 5 {
            case 0: noisy.sendRaw("{broken \(index)")
            case 1: noisy.sendRaw("[1,2,3]")
            case 2: noisy.sendRaw("{\"type\":42}")
            case 3: noisy.send(["type": "setTrackEnabled", "id": "x\(index)", "trackSid": 7])
            default: noisy.send(["type": "publish", "id": "x\(index)", "sdp": "v=0", "tracks": []])
            }
        }

        for client in clients {
            let joined = try await client.next("joined", timeout: 30)
            #expect((joined["room"] as? [String: Any])?["name"] as? String != nil)
        }
        for index in 0..<50 {
            let error = try await noisy.next("error", index: index, timeout: 30)
            #expect(error["code"] as? Int == 53003)
        }

        // The node still answers health probes and takes a normal join.
        let (_, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(server.port)/healthz")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let late = try server.client("latecomer")
        late.send(["type": "join", "id": "late", "room": "after-the-burst"])
        try await late.next("joined")

        // A 51st participant of a full room is refused with 53105.
        let extra = try server.client("one-too-many")
        extra.send(["type": "join", "id": "full", "room": "load-0"])
        let full = try await extra.next("error")
        #expect(full["code"] as? Int == 53105)

        for client in clients { await client.close() }
        await noisy.close()
        await late.close()
    }
}
}
