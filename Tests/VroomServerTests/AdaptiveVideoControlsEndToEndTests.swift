import Foundation
import Testing
import VroomTesting

/// The subscriber controls of PROTOCOL.md section 7 over a real
/// `vroom-server --dev`: each refused request gets its documented code, an
/// accepted one `ok`, and none of them changes the SDP.
extension ServerProcessTests {
@Suite struct AdaptiveVideoControlsEndToEndTests {
    typealias E2E = SignalingEndToEndTests

    @Test func subscriberControlsAnswerWithTheirCodes() async throws {
        let server = try E2E.Server()
        defer { server.stop() }
        let alice = try server.client("alice")
        let bob = try server.client("bob")
        let carol = try server.client("carol")
        alice.send(["type": "join", "id": "j", "room": "r"])
        _ = try await alice.next("joined")
        bob.send([
            "type": "join", "id": "j", "room": "r",
            "bandwidthProfile": ["video": ["clientTrackSwitchOffControl": "manual", "mode": "grid"]],
        ])
        _ = try await bob.next("joined")
        // carol subscribes to nothing, and keeps the default (auto) control.
        carol.send(["type": "join", "id": "j", "room": "r", "rules": [["type": "exclude", "all": true]]])
        _ = try await carol.next("joined")

        alice.send([
            "type": "publish", "id": "p", "sdp": E2E.offer,
            "tracks": [
                ["mid": "0", "name": "mic", "kind": "audio"],
                ["mid": "1", "name": "camera", "kind": "video", "priority": "high"],
            ],
        ])
        let tracks = try #require(try await alice.next("publishAnswer")["tracks"] as? [[String: Any]])
        let mic = try #require(tracks.first?["sid"] as? String)
        let camera = try #require(tracks.last?["sid"] as? String)
        let offer = try await bob.next("subscribeOffer", where: { ($0["tracks"] as? [Any])?.count == 2 })
        bob.send(["type": "subscribeAnswer", "id": "a", "sdp": E2E.answer(to: try #require(offer["sdp"] as? String))])
        try await bob.next("ok", where: { $0["id"] as? String == "a" })

        // Accepted: each is `ok`.
        let requests: [[String: Any]] = [
            ["type": "setContentPreferences", "id": "c1", "trackSid": camera, "renderDimensions": ["width": 320, "height": 180]],
            ["type": "setContentPreferences", "id": "c2", "trackSid": camera, "renderDimensions": NSNull()],
            ["type": "setTrackPriority", "id": "c3", "trackSid": camera, "priority": "low"],
            ["type": "setTrackPriority", "id": "c4", "trackSid": camera, "priority": NSNull()],
            ["type": "switchOffTrack", "id": "c5", "trackSid": camera],
            ["type": "switchOnTrack", "id": "c6", "trackSid": camera],
        ]
        for request in requests {
            bob.send(request)
            let id = try #require(request["id"] as? String)
            try await bob.next("ok", where: { $0["id"] as? String == id })
        }

        // Refused: an audio track or one not subscribed is 53300; manual
        // switch-off without `manual` in join, or a bad size, is 53003.
        let refusals: [(client: SignalingClient, request: [String: Any], code: Int)] = [
            (bob, ["type": "setContentPreferences", "id": "r1", "trackSid": mic, "renderDimensions": ["width": 320, "height": 180]], 53300),
            (bob, ["type": "switchOffTrack", "id": "r2", "trackSid": "MT00000000000000000000000000000000"], 53300),
            (carol, ["type": "setTrackPriority", "id": "r3", "trackSid": camera, "priority": "high"], 53300),
            (carol, ["type": "switchOffTrack", "id": "r4", "trackSid": camera], 53003),
            (bob, ["type": "setContentPreferences", "id": "r5", "trackSid": camera, "renderDimensions": ["width": -1, "height": 1]], 53003),
        ]
        for (client, request, code) in refusals {
            client.send(request)
            let id = try #require(request["id"] as? String)
            let error = try await client.next("error", where: { $0["id"] as? String == id })
            #expect(error["code"] as? Int == code, "\(request): \(error)")
        }
        #expect(bob.count("subscribeOffer") == 1, "preferences and switch-off change no SDP")
        await alice.close()
        await bob.close()
        await carol.close()
    }
}
}
