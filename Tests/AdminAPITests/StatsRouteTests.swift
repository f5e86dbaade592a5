import AdminAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import MediaIO
import Persistence
import Rooms
import SDP
import Testing
import Node
import WebRTC

/// `GET /v1/Rooms/{RoomSid}/Stats` through the real routes, with a real
/// `MediaPlane` on loopback (PROTOCOL.md section 6).
@Suite struct StatsRouteTests {
    /// A host, an in-memory history, a media plane and the admin routes
    /// reading both.
    struct Fixture {
        /// Its records reach the history as in the server.
        let host: RoomHost
        let history: any HistoryStore
        let plane: MediaPlane
        let media: RoomMedia
        let router = Router()

        init() throws {
            let history = try SQLiteHistoryStore(path: ":memory:")
            self.history = history
            let frozen = Date()
            host = RoomHost(clock: { frozen }, eventSink: { history.record($0) })
            plane = try MediaPlane(
                configuration: MediaConfiguration(bindAddress: "127.0.0.1", basePort: 0, workers: 1),
                logger: Logger(label: "test.media"), events: { _ in })
            plane.start()
            media = RoomMedia(plane: plane)
            AdminRoutes(
                host: host, history: history,
                configuration: AdminConfiguration(apiKey: AdminFixture.key, apiSecret: AdminFixture.secret, publicURL: AdminFixture.base),
                media: media
            ).register(on: router)
        }

        var app: some ApplicationProtocol { Application(router: router) }

        func join(_ identity: String, room: String = "standup") async throws -> (ParticipantSID, RoomSID) {
            let result = try await host.admit(connection: FakeConnection(), joined: { _ in }) { (service: inout RoomService, now) throws(RoomError) in
                try service.join(roomName: room, identity: identity, now: now)
            }
            return (result.participant.sid, result.room.sid)
        }
    }

    /// A browser-like publish offer for Opus (mid 0) and VP8 (mid 1) with
    /// declared SSRCs.
    static func publishOffer(fingerprint: String) -> String {
        let transport = "c=IN IP4 0.0.0.0\r\na=ice-ufrag:abcd\r\na=ice-pwd:abcdefghijklmnopqrstuvwx\r\na=fingerprint:sha-256 \(fingerprint)\r\na=setup:actpass\r\na=rtcp-mux\r\n"
        return "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0 1\r\n"
            + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\n" + transport
            + "a=mid:0\r\na=sendonly\r\na=rtpmap:111 opus/48000/2\r\na=ssrc:1111 cname:x\r\n"
            + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\n" + transport
            + "a=mid:1\r\na=sendonly\r\na=rtpmap:96 VP8/90000\r\na=rtcp-fb:96 nack\r\na=rtcp-fb:96 nack pli\r\na=ssrc:2222 cname:x\r\n"
    }

    static let roomKeys: Set<String> = ["room_sid", "account_sid", "unique_name", "status", "date_generated", "url", "participants"]
    static let participantKeys: Set<String> = [
        "participant_sid", "identity", "status", "network_quality", "round_trip_time_ms", "available_outgoing_bitrate", "published_tracks", "subscribed_tracks",
    ]
    static let publishedKeys: Set<String> = [
        "track_sid", "name", "kind", "enabled", "ssrc", "packets_received", "bytes_received", "bitrate_bps", "packets_lost",
        "fraction_lost", "jitter_ms", "nacks_sent", "plis_sent", "keyframes_received",
    ]

    @Test func listsParticipantsAndTheirTracksByNameOrSID() async throws {
        let fixture = try Fixture()
        let (alice, roomSID) = try await fixture.join("alice")
        let (bob, _) = try await fixture.join("bob")
        let assigned = try await fixture.host.perform { (service: inout RoomService, now) throws(RoomError) in
            try service.publish(
                participant: alice,
                tracks: [TrackRequest(mid: "0", name: "mic", kind: "audio"), TrackRequest(mid: "1", name: "camera", kind: "video")],
                now: now)
        }
        let certificate = try DTLSCertificate.generate()
        let pending = try fixture.media.answerPublish(
            participant: alice, room: roomSID, offer: Self.publishOffer(fingerprint: certificate.fingerprint),
            trackMIDs: ["0", "1"])
        try await fixture.media.applyPublish(participant: alice, room: roomSID, pending, tracks: assigned)
        let mic = try #require(assigned.first { $0.name == "mic" }?.sid)

        try await fixture.app.test(.router) { client in
            let byName = try await client.call(.get, "/v1/Rooms/standup/Stats")
            #expect(byName.status == 200)
            #expect(Set(byName.json.keys) == Self.roomKeys)
            #expect(byName.json["room_sid"] as? String == roomSID.rawValue)
            #expect(byName.json["unique_name"] as? String == "standup")
            #expect(byName.json["status"] as? String == "in-progress")
            #expect(byName.json["url"] as? String == "\(AdminFixture.base)/v1/Rooms/\(roomSID.rawValue)/Stats")
            #expect((byName.json["date_generated"] as? String).map(TwilioSchema.isTwilioDate) == true)
            let participants = try #require(byName.json["participants"] as? [[String: Any]])
            #expect(participants.map { $0["identity"] as? String } == ["alice", "bob"])
            for participant in participants { #expect(Set(participant.keys) == Self.participantKeys) }
            let first = participants[0]
            #expect(first["participant_sid"] as? String == alice.rawValue)
            #expect(first["status"] as? String == "connected")
            // No media from alice: no rating yet (null), or, once 5 s have
            // passed on a slow machine, level 0 with no MOS ("no media for 5 s").
            let quality = first["network_quality"] as? [String: Any]
            #expect(first["network_quality"] is NSNull || (quality?["level"] as? Int == 0 && quality?["mos"] is NSNull))
            #expect(first["round_trip_time_ms"] is NSNull)
            let published = try #require(first["published_tracks"] as? [[String: Any]])
            #expect(published.count == 2)
            for track in published { #expect(Set(track.keys) == Self.publishedKeys) }
            let audio = try #require(published.first { $0["track_sid"] as? String == mic.rawValue })
            #expect(audio["name"] as? String == "mic")
            #expect(audio["kind"] as? String == "audio")
            #expect(audio["enabled"] as? Bool == true)
            #expect(audio["ssrc"] as? Int == 1111)
            #expect(audio["packets_received"] as? Int == 0)
            #expect(audio["bytes_received"] as? Int == 0)
            // Null before the first once-a-second rate tick, 0 after it (no packets either way).
            #expect(audio["bitrate_bps"] is NSNull || audio["bitrate_bps"] as? Int == 0)
            #expect(audio["fraction_lost"] as? Double == 0)
            #expect(published.first { $0["name"] as? String == "camera" }?["ssrc"] as? Int == 2222)
            #expect((first["subscribed_tracks"] as? [Any])?.isEmpty == true)
            #expect(participants[1]["participant_sid"] as? String == bob.rawValue)
            #expect((participants[1]["published_tracks"] as? [Any])?.isEmpty == true)

            let bySID = try await client.call(.get, "/v1/Rooms/\(roomSID.rawValue)/Stats")
            #expect(bySID.status == 200)
            #expect((bySID.json["participants"] as? [Any])?.count == 2)
        }
        await fixture.plane.stop()
    }

    @Test func unknownRoomIs53106AndEveryCallNeedsAuth() async throws {
        let fixture = try Fixture()
        _ = try await fixture.join("alice")
        try await fixture.app.test(.router) { client in
            let unknown = try await client.call(.get, "/v1/Rooms/nowhere/Stats")
            #expect(unknown.status == 404)
            #expect(unknown.code == 53106)
            let anonymous = try await client.call(.get, "/v1/Rooms/standup/Stats", authorization: nil)
            #expect(anonymous.status == 401)
            #expect(anonymous.code == 20003)
            let wrong = try await client.call(
                .get, "/v1/Rooms/standup/Stats", authorization: "Basic " + Data("\(AdminFixture.key):nope".utf8).base64EncodedString())
            #expect(wrong.status == 401)
        }
        await fixture.plane.stop()
    }

    @Test func aCompletedRoomHasNoParticipants() async throws {
        let fixture = try Fixture()
        let (_, roomSID) = try await fixture.join("alice")
        try await fixture.app.test(.router) { client in
            #expect(try await client.call(.post, "/v1/Rooms/standup", form: [("Status", "completed")]).status == 202)
            let stats = try await client.call(.get, "/v1/Rooms/\(roomSID.rawValue)/Stats")
            #expect(stats.status == 200)
            #expect(stats.json["status"] as? String == "completed")
            #expect((stats.json["participants"] as? [Any])?.isEmpty == true)
        }
        await fixture.plane.stop()
    }
}
