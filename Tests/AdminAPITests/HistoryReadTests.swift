import AdminAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Persistence
import Rooms
import Testing

/// The host keeps only what is live (issue 11, item 4); REST reads of
/// participants that left and rooms that completed come from the history,
/// as PROTOCOL.md section 6 describes them.
@Suite struct HistoryReadTests {
    private func sids(_ answer: Answer, _ key: String = "participants") -> [String] {
        ((answer.json[key] as? [[String: Any]]) ?? []).compactMap { $0["sid"] as? String }
    }

    @Test func endedSessionsAndCompletedRoomsAreReadFromTheHistory() async throws {
        let fixture = try AdminFixture()
        let stayer = try await fixture.join("stayer")
        var ended: [ParticipantSID] = []
        for n in 0..<30 {
            let sid = try await fixture.join("churner-\(n % 10)")
            await fixture.host.perform { (service: inout RoomService, now) -> [RoomEvent] in
                service.leave(participant: sid, now: now)
            }
            ended.append(sid)
        }
        let gone = ended
        // The host holds the one live session, not the 30 that left.
        #expect(await fixture.host.read { $0.retainedSessionCount } == 1)

        try await fixture.app.test(.router) { client in
            // An in-progress room lists its connected participants by default.
            #expect(sids(try await client.call(.get, "/v1/Rooms/standup/Participants")) == [stayer.rawValue])
            let left = try await client.call(.get, "/v1/Rooms/standup/Participants?Status=disconnected&PageSize=20")
            #expect(sids(left) == gone.prefix(20).map(\.rawValue))
            let rest = try await client.call(.get, "/v1/Rooms/standup/Participants?Status=disconnected&PageSize=20&Page=1")
            #expect(sids(rest) == gone.suffix(10).map(\.rawValue))

            let one = try await client.call(.get, "/v1/Rooms/standup/Participants/\(gone[3].rawValue)")
            #expect(one.status == 200)
            #expect(one.json["status"] as? String == "disconnected")
            #expect(one.json["identity"] as? String == "churner-3")
            #expect(one.json["end_time"] is String && one.json["duration"] as? Int == 0)
            // By identity: its most recent session.
            #expect(try await client.call(.get, "/v1/Rooms/standup/Participants/churner-5").json["sid"] as? String == gone[25].rawValue)
            // What an ended session had is gone with it.
            let tracks = try await client.call(.get, "/v1/Rooms/standup/Participants/churner-5/PublishedTracks")
            #expect((tracks.json["published_tracks"] as? [Any])?.isEmpty == true)
            #expect(try await client.call(.get, "/v1/Rooms/standup/Participants/churner-5/SubscribeRules").json["rules"] is NSNull)
            let removing = try await client.call(.post, "/v1/Rooms/standup/Participants/churner-5", form: [("Status", "disconnected")])
            #expect(removing.code == 53204)

            // Completing the room: the host forgets it, the history answers.
            let completed = try await client.call(.post, "/v1/Rooms/standup", form: [("Status", "completed")])
            #expect(completed.status == 202)
            let roomSID = try #require(completed.json["sid"] as? String)
            for reference in ["standup", roomSID] {
                let fetched = try await client.call(.get, "/v1/Rooms/\(reference)")
                #expect(fetched.status == 200 && fetched.json["status"] as? String == "completed")
                #expect(fetched.json["sid"] as? String == roomSID && fetched.json["end_time"] is String)
            }
            // A completed room's participants default to all, in join order.
            let everyone = try await client.call(.get, "/v1/Rooms/\(roomSID)/Participants?PageSize=100")
            #expect(sids(everyone) == [stayer.rawValue] + gone.map(\.rawValue))
            let stayed = try await client.call(.get, "/v1/Rooms/\(roomSID)/Participants/stayer")
            #expect(stayed.json["status"] as? String == "disconnected")
            #expect(try await client.call(.post, "/v1/Rooms/\(roomSID)", form: [("Status", "completed")]).code == 53112)
            #expect(sids(try await client.call(.get, "/v1/Rooms?Status=completed"), "rooms") == [roomSID])
            #expect(sids(try await client.call(.get, "/v1/Rooms?Status=in-progress"), "rooms").isEmpty)
        }
        #expect(await fixture.host.read { $0.allRooms().isEmpty && $0.participantCount == 0 })
    }
}
