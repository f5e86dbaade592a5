import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Packets
import Testing
import VroomTestPeer
import LoadTestCore
import VroomTesting
import WebRTC

@testable import MediaIO

/// `/v1/Rooms/{RoomSid}/Stats` and `/metrics` of a real `vroom-server`
/// process against what two real WebRTC clients (`TestPeer`: ICE, DTLS,
/// SRTP over loopback UDP) sent and received through it, joined over the
/// signaling WebSocket.
extension ServerProcessTests {
@Suite struct StatsEndToEndTests {
    static func get(_ port: Int, _ path: String, authorized: Bool = true) async throws -> (Int, Data) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        if authorized {
            request.setValue("Basic " + Data("devkey:devsecret".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    static func metrics(_ port: Int) async throws -> PrometheusExposition {
        let (status, data) = try await get(port, "/metrics", authorized: false)
        #expect(status == 200)
        return try PrometheusExposition(parsing: String(decoding: data, as: UTF8.self))
    }

    /// The plaintext RTP length of a packet `TestPeer.sendRTP` sends.
    static func plainLength(_ header: RTPHeader, _ payload: [UInt8]) throws -> Int {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)
        defer { scratch.deallocate() }
        return try payload.withUnsafeBytes { try RTPHeader.writePacket(header, payload: $0, to: scratch) }
    }

    @Test func statsAndMetricsAgreeWithWhatTheClientsSentAndReceived() async throws {
        let (server, port) = try ServerProcess.dev()
        defer { server.stop() }
        let start = try await Self.metrics(port)
        #expect(start.value("vroom_join_seconds_count") == 0)

        let alice = SignalingClient(port: port, token: try AdminRESTEndToEndTests.token("alice"))
        let bob = SignalingClient(port: port, token: try AdminRESTEndToEndTests.token("bob"))
        alice.send(["type": "join", "id": "j", "room": "stats"])
        let aliceSID = try #require((try await alice.next("joined")["participant"] as? [String: Any])?["sid"] as? String)
        bob.send(["type": "join", "id": "j", "room": "stats"])
        let bobSID = try #require((try await bob.next("joined")["participant"] as? [String: Any])?["sid"] as? String)

        // Alice publishes Opus + VP8 and connects her publisher connection.
        let audioSSRC = SSRC(0x1234_5678)
        let videoSSRC = SSRC(0x2345_6789)
        let publisher = try TestPeer(ice: .random())
        alice.send([
            "type": "publish", "id": "p", "sdp": publisher.publishOffer(audioSSRC: audioSSRC, videoSSRC: videoSSRC),
            "tracks": [["mid": "0", "name": "mic", "kind": "audio"], ["mid": "1", "name": "camera", "kind": "video"]],
        ])
        let answer = try await alice.next("publishAnswer")
        let tracks = try #require(answer["tracks"] as? [[String: Any]])
        let micSID = try #require(tracks.first { $0["name"] as? String == "mic" }?["sid"] as? String)
        let cameraSID = try #require(tracks.first { $0["name"] as? String == "camera" }?["sid"] as? String)
        try publisher.connect(serverSDP: try #require(answer["sdp"] as? String), dtlsRole: .client)
        try #require(await TestPeer.pump([publisher], timeout: .seconds(20)) { publisher.isConnected }, "alice: no DTLS")

        // Bob is offered both tracks, answers and connects.
        let offer = try #require(
            try await bob.next("subscribeOffer", where: { ($0["sdp"] as? String)?.contains("m=video") == true })["sdp"] as? String)
        let subscriber = try TestPeer(ice: .random())
        bob.send(["type": "subscribeAnswer", "id": "a", "sdp": try subscriber.subscriberAnswer(to: offer)])
        try await bob.next("ok", where: { $0["id"] as? String == "a" })
        try subscriber.connect(serverSDP: offer, dtlsRole: .client)
        try #require(await TestPeer.pump([publisher, subscriber], timeout: .seconds(20)) { subscriber.isConnected }, "bob: no DTLS")
        let offered = try ServerTransportSDP(offer)
        let bobAudio = try #require(offered.media.first { $0.kind == "audio" }?.ssrcs.first)
        let bobVideo = try #require(offered.media.first { $0.kind == "video" }?.ssrcs.first)

        // 60 rounds, 20 ms apart (1.2 s): Opus and one VP8 frame each.
        var audioBytes = 0
        var videoBytes = 0
        var audioSequence: UInt16 = 100
        var videoSequence: UInt16 = 7000
        var pictureID: UInt16 = 1
        for round in 0..<60 {
            let audioHeader = RTPHeader(
                marker: false, payloadType: 111, sequenceNumber: audioSequence, timestamp: UInt32(round) * 960, ssrc: audioSSRC,
                extensions: [.init(id: 4, value: Array("0".utf8))])
            let audioPayload: [UInt8] = [0x78] + [UInt8](repeating: UInt8(truncatingIfNeeded: round), count: 60)
            try publisher.sendRTP(audioHeader, payload: audioPayload)
            audioBytes += try Self.plainLength(audioHeader, audioPayload)
            audioSequence &+= 1
            let videoHeader = RTPHeader(
                marker: true, payloadType: 96, sequenceNumber: videoSequence, timestamp: UInt32(round) * 3000, ssrc: videoSSRC,
                extensions: [.init(id: 4, value: Array("1".utf8))])
            var videoPayload: [UInt8] = [0x90, 0x80, 0x80 | UInt8(pictureID >> 8), UInt8(pictureID & 0xFF)]
            videoPayload += round == 0 ? [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xB4, 0x00] : [0x11, 0x02, 0x00]
            videoPayload += [UInt8](repeating: 0xA5, count: 400)
            try publisher.sendRTP(videoHeader, payload: videoPayload)
            videoBytes += try Self.plainLength(videoHeader, videoPayload)
            videoSequence &+= 1
            pictureID += 1
            await TestPeer.pump([publisher, subscriber], for: .milliseconds(20))
        }
        let arrived = await TestPeer.pump([publisher, subscriber], timeout: .seconds(10)) {
            subscriber.rtp.filter { $0.ssrc == bobAudio }.count >= 60 && subscriber.rtp.filter { $0.ssrc == bobVideo }.count >= 60
        }
        #expect(arrived, "bob did not get all 60 rounds")
        // A report tick (1 s) for the rates, a quality sample (1 s) for both.
        await TestPeer.pump([publisher, subscriber], for: .milliseconds(1200))
        let bobGotAudio = subscriber.rtp.filter { $0.ssrc == bobAudio }.count
        let bobGotVideo = subscriber.rtp.filter { $0.ssrc == bobVideo }.count

        let (status, data) = try await Self.get(port, "/v1/Rooms/stats/Stats")
        #expect(status == 200)
        let stats = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        print("GET /v1/Rooms/stats/Stats ->", String(decoding: data, as: UTF8.self))
        let participants = try #require(stats["participants"] as? [[String: Any]])
        let a = try #require(participants.first { $0["participant_sid"] as? String == aliceSID })
        let b = try #require(participants.first { $0["participant_sid"] as? String == bobSID })
        let published = try #require(a["published_tracks"] as? [[String: Any]])
        let mic = try #require(published.first { $0["track_sid"] as? String == micSID })
        let camera = try #require(published.first { $0["track_sid"] as? String == cameraSID })
        #expect(mic["name"] as? String == "mic")
        #expect(mic["ssrc"] as? Int == Int(audioSSRC.rawValue))
        #expect(mic["packets_received"] as? Int == 60)
        #expect(mic["bytes_received"] as? Int == audioBytes)
        #expect(mic["packets_lost"] as? Int == 0)
        #expect((mic["bitrate_bps"] as? Int).map { $0 > 0 } == true)
        #expect(camera["packets_received"] as? Int == 60)
        #expect(camera["bytes_received"] as? Int == videoBytes)
        #expect(camera["keyframes_received"] as? Int == 1)
        let plisSent = try #require(camera["plis_sent"] as? Int)
        #expect(plisSent >= 1)
        #expect(plisSent == publisher.pictureLossIndications)
        let subscribed = try #require(b["subscribed_tracks"] as? [[String: Any]])
        let micOut = try #require(subscribed.first { $0["track_sid"] as? String == micSID })
        let cameraOut = try #require(subscribed.first { $0["track_sid"] as? String == cameraSID })
        #expect(micOut["publisher_sid"] as? String == aliceSID)
        #expect(micOut["ssrc"] as? Int == Int(bobAudio.rawValue))
        #expect(micOut["packets_sent"] as? Int == bobGotAudio)
        #expect(cameraOut["packets_sent"] as? Int == bobGotVideo)
        #expect(cameraOut["retransmissions"] as? Int == 0)
        #expect((cameraOut["bitrate_bps"] as? Int).map { $0 > 0 } == true)
        // A sample a second: alice, who sends media, is rated after 2 s;
        // bob sends nothing (this client writes no RTCP), so nothing rates
        // him yet and his network quality is null.
        let quality = try #require(a["network_quality"] as? [String: Any])
        let level = try #require(quality["level"] as? Int)
        #expect((0...5).contains(level))
        #expect(quality["warnings"] is [Any])
        #expect(b["network_quality"] is NSNull)
        let (unknown, body) = try await Self.get(port, "/v1/Rooms/nowhere/Stats")
        #expect(unknown == 404)
        #expect((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["code"] as? Int == 53106)

        // An invalid frame is answered 53003 and counted.
        alice.sendRaw("{not json")
        try await alice.next("error")
        let end = try await Self.metrics(port)
        #expect(end.value("vroom_rooms") == 1)
        #expect(end.value("vroom_participants") == 2)
        #expect(end.value("vroom_join_seconds_count") == 2)
        #expect((end.value("vroom_join_seconds_bucket", ["le": "+Inf"])) == 2)
        #expect(end.value("vroom_signaling_errors_total", ["code": "53003"]) == 1)
        #expect(end.value("vroom_packets_received_total", ["kind": "audio"]) == 60)
        #expect(end.value("vroom_packets_received_total", ["kind": "video"]) == 60)
        #expect(end.value("vroom_packets_forwarded_total", ["kind": "audio"]) == Double(bobGotAudio))
        #expect(end.value("vroom_packets_forwarded_total", ["kind": "video"]) == Double(bobGotVideo))
        #expect(end.value("vroom_media_connections") == 2)
        #expect(end.sum("vroom_network_quality_participants") == 1, "only rated participants are counted")
        await alice.close()
        await bob.close()
    }
}
}
