import AdminAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Rooms
import Testing
import Node

/// `/v1/Rooms/{RoomSid}/Participants…` through the router (PROTOCOL.md section 6).
@Suite struct ParticipantRoutesTests {
    @Test(.enabled(if: TwilioSchema.available, "Twilio reference file absent at ../shared/reference"))
    func listFetchAndRemove() async throws {
        let fixture = try AdminFixture()
        let bob = FakeConnection()
        let aliceSID = try await fixture.join("alice")
        let bobSID = try await fixture.join("bob", connection: bob)
        try await fixture.app.test(.router) { client in
            let list = try await client.call(.get, "/v1/Rooms/standup/Participants")
            #expect(list.status == 200)
            let participants = try #require(list.json["participants"] as? [[String: Any]])
            #expect(participants.map { $0["identity"] as? String } == ["alice", "bob"])
            for participant in participants {
                try TwilioSchema.expectConforms(participant, to: "video.v1.room.room_participant")
            }
            let roomSID = try #require(participants.first?["room_sid"] as? String)
            #expect(participants.first?["url"] as? String == "\(AdminFixture.base)/v1/Rooms/\(roomSID)/Participants/\(aliceSID.rawValue)")
            let links = try #require(participants.first?["links"] as? [String: String])
            #expect(links["published_tracks"] == "\(AdminFixture.base)/v1/Rooms/\(roomSID)/Participants/\(aliceSID.rawValue)/PublishedTracks")
            #expect(links["subscribe_rules"]?.hasSuffix("/SubscribeRules") == true)
            #expect((list.json["meta"] as? [String: Any])?["key"] as? String == "participants")
            #expect((list.json["meta"] as? [String: Any])?["url"] as? String
                == "\(AdminFixture.base)/v1/Rooms/standup/Participants?PageSize=50&Page=0")

            let byIdentity = try await client.call(.get, "/v1/Rooms/standup/Participants/bob")
            #expect(byIdentity.json["sid"] as? String == bobSID.rawValue)
            #expect(byIdentity.json["status"] as? String == "connected")
            #expect(byIdentity.json["end_time"] is NSNull)
            #expect(try await client.call(.get, "/v1/Rooms/\(roomSID)/Participants/\(bobSID.rawValue)").status == 200)
            let unknown = try await client.call(.get, "/v1/Rooms/standup/Participants/carol")
            #expect(unknown.status == 404)
            #expect(unknown.code == 53204)

            let wrongStatus = try await client.call(.post, "/v1/Rooms/standup/Participants/bob", form: [("Status", "connected")])
            #expect(wrongStatus.status == 400)
            let removed = try await client.call(.post, "/v1/Rooms/standup/Participants/bob", form: [("Status", "disconnected")])
            #expect(removed.status == 202)
            try TwilioSchema.expectConforms(removed.json, to: "video.v1.room.room_participant")
            #expect(removed.json["status"] as? String == "disconnected")
            #expect(removed.json["end_time"] is String)
            #expect(removed.json["duration"] as? Int == 0)
            #expect(bob.disconnectError == .participantRemoved)
            let again = try await client.call(.post, "/v1/Rooms/standup/Participants/bob", form: [("Status", "disconnected")])
            #expect(again.status == 404)
            #expect(again.code == 53204)

            // Default Status=connected for an in-progress room; other filters on request.
            let connected = try await client.call(.get, "/v1/Rooms/standup/Participants")
            #expect((connected.json["participants"] as? [[String: Any]])?.map { $0["identity"] as? String } == ["alice"])
            let gone = try await client.call(.get, "/v1/Rooms/standup/Participants?Status=disconnected")
            #expect((gone.json["participants"] as? [[String: Any]])?.map { $0["identity"] as? String } == ["bob"])
            #expect(((gone.json["meta"] as? [String: Any])?["url"] as? String)?.contains("Status=disconnected") == true)
            let named = try await client.call(.get, "/v1/Rooms/standup/Participants?Status=disconnected&Identity=alice")
            #expect((named.json["participants"] as? [Any])?.isEmpty == true)
            #expect(try await client.call(.get, "/v1/Rooms/standup/Participants?Status=gone").status == 400)
            let paged = try await client.call(.get, "/v1/Rooms/standup/Participants?Status=connected&PageSize=1")
            #expect((paged.json["meta"] as? [String: Any])?["next_page_url"] is NSNull)
            #expect(try await client.call(.get, "/v1/Rooms/nowhere/Participants").code == 53106)
        }
    }

    @Test(.enabled(if: TwilioSchema.available, "Twilio reference file absent at ../shared/reference"))
    func publishedAndSubscribedTracks() async throws {
        let fixture = try AdminFixture()
        let alice = try await fixture.join("alice")
        try await fixture.join("bob")
        let assigned = try await fixture.publish(alice, [
            TrackRequest(mid: "0", name: "mic", kind: "audio"), TrackRequest(mid: "1", name: "camera", kind: "video"),
        ])
        let mic = try #require(assigned.first?.sid.rawValue)
        try await fixture.app.test(.router) { client in
            let published = try await client.call(.get, "/v1/Rooms/standup/Participants/alice/PublishedTracks")
            #expect(published.status == 200)
            let tracks = try #require(published.json["published_tracks"] as? [[String: Any]])
            #expect(tracks.map { $0["name"] as? String } == ["mic", "camera"])
            for track in tracks {
                try TwilioSchema.expectConforms(track, to: "video.v1.room.room_participant.room_participant_published_track")
            }
            #expect(tracks.first?["kind"] as? String == "audio")
            #expect(tracks.first?["enabled"] as? Bool == true)
            #expect((tracks.first?["url"] as? String)?.hasSuffix("/PublishedTracks/\(mic)") == true)
            #expect((published.json["meta"] as? [String: Any])?["key"] as? String == "published_tracks")
            let one = try await client.call(.get, "/v1/Rooms/standup/Participants/alice/PublishedTracks/\(mic)")
            #expect(one.json["sid"] as? String == mic)
            let missing = try await client.call(.get, "/v1/Rooms/standup/Participants/alice/PublishedTracks/MT00000000000000000000000000000000")
            #expect(missing.status == 404)
            #expect(missing.code == 20404)

            let subscribed = try await client.call(.get, "/v1/Rooms/standup/Participants/bob/SubscribedTracks")
            let received = try #require(subscribed.json["subscribed_tracks"] as? [[String: Any]])
            #expect(received.count == 2)
            for track in received {
                try TwilioSchema.expectConforms(track, to: "video.v1.room.room_participant.room_participant_subscribed_track")
                #expect(track["publisher_sid"] as? String == alice.rawValue)
            }
            #expect((subscribed.json["meta"] as? [String: Any])?["key"] as? String == "subscribed_tracks")
            #expect(try await client.call(.get, "/v1/Rooms/standup/Participants/bob/SubscribedTracks/\(mic)").status == 200)
            #expect(try await client.call(.get, "/v1/Rooms/standup/Participants/alice/SubscribedTracks/\(mic)").status == 404)
        }
    }

    @Test(.enabled(if: TwilioSchema.available, "Twilio reference file absent at ../shared/reference"))
    func subscribeRulesReadAndReplace() async throws {
        let fixture = try AdminFixture()
        let alice = try await fixture.join("alice")
        let bob = FakeConnection()
        try await fixture.join("bob", connection: bob)
        _ = try await fixture.publish(alice, [TrackRequest(mid: "0", name: "mic", kind: "audio"), TrackRequest(mid: "1", name: "camera", kind: "video")])
        try await fixture.app.test(.router) { client in
            let rules = try await client.call(.get, "/v1/Rooms/standup/Participants/bob/SubscribeRules")
            #expect(rules.status == 200)
            try TwilioSchema.expectConforms(rules.json, to: "video.v1.room.room_participant.room_participant_subscribe_rule")
            let current = try #require(rules.json["rules"] as? [[String: Any]])
            #expect(current.count == 1)
            #expect(current.first?["type"] as? String == "include")
            #expect(current.first?["all"] as? Bool == true)
            // Criteria a rule does not use are left out: Twilio's schema has
            // them as non-nullable strings.
            #expect(current.first.map { Set($0.keys) } == ["type", "all"])

            let replaced = try await client.call(
                .post, "/v1/Rooms/standup/Participants/bob/SubscribeRules",
                form: [("Rules", #"[{"type":"include","all":true},{"type":"exclude","kind":"video","publisher":"alice"}]"#)])
            #expect(replaced.status == 200)
            let newRules = try #require(replaced.json["rules"] as? [[String: Any]])
            #expect(newRules.count == 2)
            #expect(newRules.last?["kind"] as? String == "video")
            #expect(newRules.last?["publisher"] as? String == "alice")
            let subscribed = try await client.call(.get, "/v1/Rooms/standup/Participants/bob/SubscribedTracks")
            #expect((subscribed.json["subscribed_tracks"] as? [[String: Any]])?.map { $0["name"] as? String } == ["mic"])
            #expect(bob.received.contains(.subscriptionsChanged))

            // JSON bodies may carry Rules as an array.
            let json = try await client.call(.post, "/v1/Rooms/standup/Participants/bob/SubscribeRules", json: #"{"Rules":[{"type":"exclude","all":true}]}"#)
            #expect(json.status == 200)
            #expect((try await client.call(.get, "/v1/Rooms/standup/Participants/bob/SubscribedTracks").json["subscribed_tracks"] as? [Any])?.isEmpty == true)

            for bad in ["not json", #"[{"type":"include"}]"#, #"[{"type":"maybe","all":true}]"#] {
                let refused = try await client.call(.post, "/v1/Rooms/standup/Participants/bob/SubscribeRules", form: [("Rules", bad)])
                #expect(refused.status == 400, "\(bad)")
                #expect(refused.code == 20001)
            }
            // The reason names the rule and the field at fault.
            let unknownKind = try await client.call(
                .post, "/v1/Rooms/standup/Participants/bob/SubscribeRules", form: [("Rules", #"[{"type":"include","all":true},{"type":"include","kind":"data"}]"#)])
            #expect(unknownKind.status == 400 && unknownKind.code == 20001)
            #expect(unknownKind.json["message"] as? String == #"Rules are invalid: Rules[1].kind: must be one of "audio", "video""#)
            #expect(try await client.call(.post, "/v1/Rooms/standup/Participants/bob/SubscribeRules", form: []).status == 400)
            #expect(try await client.call(.post, "/v1/Rooms/standup/Participants/zed/SubscribeRules", form: [("Rules", "[]")]).code == 53204)
        }
    }

    @Test func messagesReachTheParticipantWithTheLimitsOf35() async throws {
        let fixture = try AdminFixture()
        let bob = FakeConnection()
        let bobSID = try await fixture.join("bob", connection: bob)
        try await fixture.app.test(.router) { client in
            let sent = try await client.call(.post, "/v1/Rooms/standup/Participants/bob/Messages", form: [("Content", #"{"k":1}"#), ("ContentType", "application/json")])
            #expect(sent.status == 201)
            #expect((sent.json["sid"] as? String)?.hasPrefix("ME") == true)
            #expect(sent.json["sequence_number"] as? Int == 0)
            #expect(sent.json["participant_sid"] as? String == bobSID.rawValue)
            let delivered = bob.received.compactMap { notice -> RoomMessage? in
                if case .message(let message) = notice { return message }
                return nil
            }
            #expect(delivered.map(\.content) == [#"{"k":1}"#])
            #expect(delivered.first?.from == nil)

            let invalid = try await client.call(.post, "/v1/Rooms/standup/Participants/bob/Messages", form: [("Content", "{oops")])
            #expect(invalid.status == 400)
            #expect(invalid.json["message"] as? String == "invalid-content")
            let big = "\"" + String(repeating: "x", count: 10_240) + "\""
            let tooLarge = try await client.call(.post, "/v1/Rooms/standup/Participants/bob/Messages", form: [("Content", big)])
            #expect(tooLarge.status == 413)
            for _ in 0..<9 {
                #expect(try await client.call(.post, "/v1/Rooms/standup/Participants/bob/Messages", form: [("Content", "1")]).status == 201)
            }
            let limited = try await client.call(.post, "/v1/Rooms/standup/Participants/bob/Messages", form: [("Content", "1")])
            #expect(limited.status == 429)
            #expect(limited.code == 20429)
            #expect(try await client.call(.post, "/v1/Rooms/standup/Participants/nobody/Messages", form: [("Content", "1")]).code == 53204)
        }
    }

    @Test func messageSubscriptionsAreKeptPerParticipant() async throws {
        let fixture = try AdminFixture()
        let alice = try await fixture.join("alice")
        let registry = fixture.routes.messageSubscriptions
        try await fixture.app.test(.router) { client in
            let subscribed = try await client.call(
                .post, "/v1/Rooms/standup/Participants/alice/MessageSubscriptions", form: [("Callback", "https://example.com/messages")])
            #expect(subscribed.status == 201)
            #expect(subscribed.json["callback"] as? String == "https://example.com/messages")
            #expect(subscribed.json["participant_sid"] as? String == alice.rawValue)
            #expect(await registry.callbacks(for: alice.rawValue) == ["https://example.com/messages"])

            #expect(try await client.call(.post, "/v1/Rooms/standup/Participants/alice/MessageSubscriptions", form: [("Callback", "ftp://x")]).status == 400)
            #expect(try await client.call(.post, "/v1/Rooms/standup/Participants/alice/MessageSubscriptions", form: []).status == 400)
            #expect(try await client.call(.post, "/v1/Rooms/standup/Participants/bob/MessageSubscriptions", form: [("Callback", "https://example.com")]).code == 53204)
        }
    }
}
