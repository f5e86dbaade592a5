import AdminAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Persistence
import Rooms
import Testing
import Node

/// `/v1/Rooms` through the router (PROTOCOL.md section 6).
@Suite struct RoomRoutesTests {
    @Test func everyRouteNeedsBasicAuthButSignalAndHealth() async throws {
        let fixture = try AdminFixture()
        try await fixture.app.test(.router) { client in
            for authorization in [nil, "Basic " + Data("\(AdminFixture.key):wrong".utf8).base64EncodedString(),
                                  "Basic " + Data("other:\(AdminFixture.secret)".utf8).base64EncodedString(),
                                  "Basic !!!", "Bearer abc"] as [String?] {
                let answer = try await client.call(.get, "/v1/Rooms", authorization: authorization)
                #expect(answer.status == 401)
                #expect(answer.code == 20003)
                #expect(answer.json["status"] as? Int == 401)
                #expect(answer.json["message"] as? String == "Authentication Error - invalid username")
            }
            #expect(try await client.call(.post, "/v1/Rooms", form: [], authorization: nil).status == 401)
            #expect(try await client.call(.get, "/v1/Rooms/x/Participants/y/SubscribeRules", authorization: nil).status == 401)
            #expect(try await client.call(.get, "/v1/Rooms").status == 200)
            try await client.execute(uri: "/v1/signal", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test(.enabled(if: TwilioSchema.available, "Twilio reference file absent at ../shared/reference"))
    func createAnswers201WithEveryFieldOfTwiliosRoom() async throws {
        let fixture = try AdminFixture()
        try await fixture.app.test(.router) { client in
            let created = try await client.call(.post, "/v1/Rooms", form: [("UniqueName", "standup")])
            #expect(created.status == 201)
            try TwilioSchema.expectConforms(created.json, to: "video.v1.room")
            let sid = try #require(created.json["sid"] as? String)
            #expect(created.json["unique_name"] as? String == "standup")
            #expect(created.json["status"] as? String == "in-progress")
            #expect(created.json["type"] as? String == "group")
            #expect(created.json["max_participants"] as? Int == 50)
            #expect(created.json["empty_room_timeout"] as? Int == 5)
            #expect(created.json["unused_room_timeout"] as? Int == 5)
            #expect(created.json["status_callback"] is NSNull)
            #expect(created.json["status_callback_method"] as? String == "POST")
            #expect(created.json["end_time"] is NSNull)
            #expect(created.json["duration"] is NSNull)
            #expect(created.json["account_sid"] as? String == AdminConfiguration.derivedAccountSID(apiKey: AdminFixture.key))
            #expect(created.json["url"] as? String == "\(AdminFixture.base)/v1/Rooms/\(sid)")
            #expect((created.json["links"] as? [String: String])?["participants"] == "\(AdminFixture.base)/v1/Rooms/\(sid)/Participants")

            // Unnamed: the SID is the name, as in Twilio. JSON bodies work too.
            let unnamed = try await client.call(.post, "/v1/Rooms", json: #"{"MaxParticipants": 7, "EmptyRoomTimeout": 10, "StatusCallback": "https://example.com/cb", "StatusCallbackMethod": "GET"}"#)
            #expect(unnamed.status == 201)
            #expect(unnamed.json["unique_name"] as? String == unnamed.json["sid"] as? String)
            #expect(unnamed.json["max_participants"] as? Int == 7)
            #expect(unnamed.json["empty_room_timeout"] as? Int == 10)
            #expect(unnamed.json["status_callback"] as? String == "https://example.com/cb")
            #expect(unnamed.json["status_callback_method"] as? String == "GET")
        }
    }

    @Test func accountSIDIsDerivedFromTheKey() {
        let sid = AdminConfiguration.derivedAccountSID(apiKey: "devkey")
        #expect(sid.range(of: "^AC[0-9a-f]{32}$", options: .regularExpression) != nil)
        #expect(sid == AdminConfiguration.derivedAccountSID(apiKey: "devkey"))
        #expect(sid != AdminConfiguration.derivedAccountSID(apiKey: "devkey2"))
        #expect(AdminConfiguration(apiKey: "k", apiSecret: "s", accountSID: "AC" + String(repeating: "1", count: 32)).accountSID.hasSuffix("1111"))
    }

    @Test(arguments: [
        ([("MaxParticipants", "51")], 400, 53107),
        ([("MaxParticipants", "0")], 400, 53107),
        ([("MaxParticipants", "ten")], 400, 53107),
        ([("EmptyRoomTimeout", "61")], 400, 53109),
        ([("UnusedRoomTimeout", "0")], 400, 53109),
        ([("UniqueName", String(repeating: "n", count: 129))], 400, 53101),
        ([("UniqueName", "bad\u{07}name")], 400, 53102),
        ([("UniqueName", "  ")], 400, 53100),
        ([("StatusCallback", "not a url")], 400, 20001),
        ([("StatusCallbackMethod", "PUT")], 400, 20001),
    ])
    func createRefusesBadParameters(form: [(String, String)], status: Int, code: Int) async throws {
        let fixture = try AdminFixture()
        try await fixture.app.test(.router) { client in
            let answer = try await client.call(.post, "/v1/Rooms", form: form)
            #expect(answer.status == status)
            #expect(answer.code == code)
            #expect(answer.json["more_info"] as? String == "https://www.twilio.com/docs/errors/\(code)")
        }
    }

    @Test func duplicateInProgressNameIs409() async throws {
        let fixture = try AdminFixture()
        try await fixture.app.test(.router) { client in
            #expect(try await client.call(.post, "/v1/Rooms", form: [("UniqueName", "dup")]).status == 201)
            let again = try await client.call(.post, "/v1/Rooms", form: [("UniqueName", "dup")])
            #expect(again.status == 409)
            #expect(again.code == 53113)
            // Completed, the name is free again (a new SID).
            #expect(try await client.call(.post, "/v1/Rooms/dup", form: [("Status", "completed")]).status == 202)
            let third = try await client.call(.post, "/v1/Rooms", form: [("UniqueName", "dup")])
            #expect(third.status == 201)
        }
    }

    @Test func fetchBySIDOrPercentEncodedName() async throws {
        let fixture = try AdminFixture()
        try await fixture.app.test(.router) { client in
            let name = "team/a?b#c d+e"
            let created = try await client.call(.post, "/v1/Rooms", form: [("UniqueName", name)])
            let sid = try #require(created.json["sid"] as? String)
            let byName = try await client.call(.get, "/v1/Rooms/\(segment(name))")
            #expect(byName.status == 200)
            #expect(byName.json["sid"] as? String == sid)
            #expect(byName.json["unique_name"] as? String == name)
            #expect(try await client.call(.get, "/v1/Rooms/\(sid)").json["unique_name"] as? String == name)

            let missing = try await client.call(.get, "/v1/Rooms/RM00000000000000000000000000000000")
            #expect(missing.status == 404)
            #expect(missing.code == 53106)
            #expect(missing.json["message"] as? String == "Room not found")
            #expect(try await client.call(.get, "/v1/Rooms/nobody").code == 53106)
        }
    }

    @Test(.enabled(if: TwilioSchema.available, "Twilio reference file absent at ../shared/reference"))
    func completeDisconnectsEveryoneAndEndsTheRoom() async throws {
        let fixture = try AdminFixture()
        let alice = FakeConnection()
        let bob = FakeConnection()
        try await fixture.join("alice", connection: alice)
        try await fixture.join("bob", connection: bob)
        try await fixture.app.test(.router) { client in
            let refused = try await client.call(.post, "/v1/Rooms/standup", form: [("Status", "in-progress")])
            #expect(refused.status == 400)
            #expect(refused.code == 53112)

            let completed = try await client.call(.post, "/v1/Rooms/standup", form: [("Status", "completed")])
            #expect(completed.status == 202)
            try TwilioSchema.expectConforms(completed.json, to: "video.v1.room")
            #expect(completed.json["status"] as? String == "completed")
            #expect(completed.json["end_time"] is String)
            #expect(completed.json["duration"] as? Int == 0)
            #expect(alice.disconnectError == .roomCompleted)
            #expect(bob.disconnectError == .roomCompleted)

            // By name, the completed room still reads; completing it again is 53112.
            let fetched = try await client.call(.get, "/v1/Rooms/standup")
            #expect(fetched.json["status"] as? String == "completed")
            let again = try await client.call(.post, "/v1/Rooms/standup", form: [("Status", "completed")])
            #expect(again.status == 400)
            #expect(again.code == 53112)
        }
    }

    @Test(.enabled(if: TwilioSchema.available, "Twilio reference file absent at ../shared/reference"))
    func listFiltersAndPagesWithAbsoluteURLs() async throws {
        let fixture = try AdminFixture()
        try await fixture.app.test(.router) { client in
            for name in ["r1", "r2", "r3", "r4", "r5"] {
                #expect(try await client.call(.post, "/v1/Rooms", form: [("UniqueName", name)]).status == 201)
            }
            #expect(try await client.call(.post, "/v1/Rooms/r2", form: [("Status", "completed")]).status == 202)

            let all = try await client.call(.get, "/v1/Rooms")
            #expect(all.status == 200)
            let rooms = try #require(all.json["rooms"] as? [[String: Any]])
            #expect(rooms.count == 5)
            for room in rooms { try TwilioSchema.expectConforms(room, to: "video.v1.room") }
            #expect(rooms.map { $0["unique_name"] as? String } == ["r5", "r4", "r3", "r2", "r1"], "newest first")
            let meta = try #require(all.json["meta"] as? [String: Any])
            #expect(meta["key"] as? String == "rooms")
            #expect(meta["page"] as? Int == 0)
            #expect(meta["page_size"] as? Int == 50)
            #expect(meta["first_page_url"] as? String == "\(AdminFixture.base)/v1/Rooms?PageSize=50&Page=0")
            #expect(meta["url"] as? String == "\(AdminFixture.base)/v1/Rooms?PageSize=50&Page=0")
            #expect(meta["previous_page_url"] is NSNull)
            #expect(meta["next_page_url"] is NSNull)

            let completed = try await client.call(.get, "/v1/Rooms?Status=completed")
            #expect((completed.json["rooms"] as? [[String: Any]])?.map { $0["unique_name"] as? String } == ["r2"])
            let inProgress = try await client.call(.get, "/v1/Rooms?Status=in-progress&PageSize=2&Page=1")
            let page = try #require(inProgress.json["rooms"] as? [[String: Any]])
            #expect(page.map { $0["unique_name"] as? String } == ["r3", "r1"])
            let pageMeta = try #require(inProgress.json["meta"] as? [String: Any])
            #expect(pageMeta["previous_page_url"] as? String == "\(AdminFixture.base)/v1/Rooms?Status=in-progress&PageSize=2&Page=0")
            #expect(pageMeta["next_page_url"] is NSNull)
            let first = try await client.call(.get, "/v1/Rooms?Status=in-progress&PageSize=2")
            #expect((first.json["meta"] as? [String: Any])?["next_page_url"] as? String
                == "\(AdminFixture.base)/v1/Rooms?Status=in-progress&PageSize=2&Page=1")

            let byName = try await client.call(.get, "/v1/Rooms?UniqueName=r4")
            #expect((byName.json["rooms"] as? [[String: Any]])?.count == 1)
            let tomorrow = TwilioFormat.date(Date().addingTimeInterval(86_400))
            let none = try await client.call(.get, "/v1/Rooms?DateCreatedAfter=\(tomorrow)")
            #expect((none.json["rooms"] as? [[String: Any]])?.isEmpty == true)
            let before = try await client.call(.get, "/v1/Rooms?DateCreatedBefore=\(tomorrow)&UniqueName=r1")
            #expect((before.json["rooms"] as? [[String: Any]])?.count == 1)
            #expect(((before.json["meta"] as? [String: Any])?["url"] as? String)?.contains("UniqueName=r1") == true)
            #expect(((before.json["meta"] as? [String: Any])?["url"] as? String)?.contains("DateCreatedBefore=") == true)

            #expect(try await client.call(.get, "/v1/Rooms?PageSize=0").code == 20001)
            #expect(try await client.call(.get, "/v1/Rooms?PageSize=1001").status == 400)
            #expect(try await client.call(.get, "/v1/Rooms?Page=-1").status == 400)
            #expect(try await client.call(.get, "/v1/Rooms?Status=open").status == 400)
            #expect(try await client.call(.get, "/v1/Rooms?DateCreatedAfter=yesterday").status == 400)
        }
    }

    @Test func historyRoomsFromAnEarlierRunAreReadAndListed() async throws {
        let fixture = try AdminFixture()
        let created = Date(timeIntervalSince1970: 1_763_700_000)
        let old = RoomRecord(sid: RoomSID(unchecked: "RM" + String(repeating: "a", count: 32)), uniqueName: "yesterday", dateCreated: created)
            .ended(.failed, at: created.addingTimeInterval(90))
        try await fixture.history.save(room: old)
        try await fixture.history.save(participant: ParticipantRecord(
            sid: ParticipantSID(unchecked: "PA" + String(repeating: "b", count: 32)), roomSID: old.sid, identity: "zoe", dateCreated: created
        ).disconnected(at: created.addingTimeInterval(60)))
        try await fixture.app.test(.router) { client in
            let fetched = try await client.call(.get, "/v1/Rooms/yesterday")
            #expect(fetched.status == 200)
            #expect(fetched.json["status"] as? String == "failed")
            #expect(fetched.json["duration"] as? Int == 90)
            #expect(fetched.json["date_created"] as? String == "2025-11-21T04:40:00Z")
            #expect(fetched.json["end_time"] as? String == "2025-11-21T04:41:30Z")
            let completing = try await client.call(.post, "/v1/Rooms/\(old.sid)", form: [("Status", "completed")])
            #expect(completing.code == 53112)

            #expect(try await client.call(.post, "/v1/Rooms", form: [("UniqueName", "today")]).status == 201)
            let list = try await client.call(.get, "/v1/Rooms")
            #expect((list.json["rooms"] as? [[String: Any]])?.map { $0["unique_name"] as? String } == ["today", "yesterday"])
            #expect((try await client.call(.get, "/v1/Rooms?Status=failed").json["rooms"] as? [Any])?.count == 1)

            // An ended room's participants default to all; by identity works.
            let participants = try await client.call(.get, "/v1/Rooms/yesterday/Participants")
            #expect((participants.json["participants"] as? [[String: Any]])?.map { $0["identity"] as? String } == ["zoe"])
            let zoe = try await client.call(.get, "/v1/Rooms/yesterday/Participants/zoe")
            #expect(zoe.json["status"] as? String == "disconnected")
            #expect(zoe.json["duration"] as? Int == 60)
            #expect(try await client.call(.get, "/v1/Rooms/yesterday/Participants/zoe/SubscribeRules").json["rules"] is NSNull)
        }
    }

    @Test func urlsFollowTheRequestHostWithoutAPublicURL() async throws {
        let fixture = try AdminFixture(publicURL: nil)
        try await fixture.app.test(.router) { client in
            let created = try await client.call(.post, "/v1/Rooms", form: [("UniqueName", "hosted")])
            let sid = try #require(created.json["sid"] as? String)
            // The router test framework sends authority "localhost".
            #expect(created.json["url"] as? String == "http://localhost/v1/Rooms/\(sid)")
        }
    }
}

/// Dates as filters are written in tests.
enum TwilioFormat {
    static func date(_ date: Date) -> String {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)).formatted(Date.ISO8601FormatStyle())
    }
}
