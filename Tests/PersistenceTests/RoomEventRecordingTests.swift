import Foundation
import Persistence
import Rooms
import Synchronization
import Testing

/// `HistoryStore.record(_:)`: the room owner's events become rows in order,
/// and a read sees every record enqueued before it, even on a file database
/// whose reads run beside the writes (the room service forgets what ended,
/// so REST must find it here right away).
@Suite struct RoomEventRecordingTests {
    private let start = Date(timeIntervalSince1970: 1_795_257_000)

    private func temporaryPath() throws -> (directory: URL, path: String) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vroom-record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return (url, url.appendingPathComponent("history.sqlite").path)
    }

    @Test(arguments: ["memory", "file", "postgres"])
    func churnRecordsAreReadableAtOnce(database: String) async throws {
        let (directory, path) = try temporaryPath()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store: any HistoryStore = switch database {
        case "postgres": try await StoreKind.postgres.makeStore()
        default: try SQLiteHistoryStore(path: database == "file" ? path : ":memory:")
        }
        var service = RoomService(generator: SystemRandomNumberGenerator())
        let failures = FailureCount()

        let stayer = try service.join(roomName: "standup", identity: "stayer", name: "Stayer", now: start)
        #expect(store.record(stayer.events, completion: failures.note))
        var gone: [ParticipantSID] = []
        for n in 0..<1_000 {
            let now = start.addingTimeInterval(Double(n))
            let joined = try service.join(roomName: "standup", identity: "churner", now: now)
            let sid = joined.value.participant.sid
            let published = try service.publish(
                participant: sid, tracks: [TrackRequest(mid: "0", name: "mic", kind: "audio")], now: now)
            #expect(store.record(joined.events + published.events, completion: failures.note))
            #expect(store.record(service.leave(participant: sid, now: now.addingTimeInterval(0.5)), completion: failures.note))
            gone.append(sid)
        }
        // No await between the last enqueue and these reads but their own.
        let roomSID = stayer.value.room.sid
        let last = try #require(try await store.participant(roomSID: roomSID, sidOrIdentity: gone[999].rawValue))
        #expect(last.status == .disconnected && last.endReason == .left)
        #expect(try await store.tracks(participantSID: gone[999]).isEmpty)
        let page = try await store.participants(roomSID: roomSID, status: .disconnected, pageSize: 1_000)
        #expect(page.items.map(\.sid) == gone)
        let first = try #require(try await store.participant(roomSID: roomSID, sidOrIdentity: "stayer"))
        #expect(first.status == .connected && first.name == "Stayer")
        #expect(try await store.room(sid: "standup") == nil)
        #expect(try await store.latestRoom(uniqueName: "standup")?.sid == roomSID)
        #expect(failures.count == 0)
        // The service itself kept only the live session.
        #expect(service.retainedSessionCount == 1)
    }

    @Test(arguments: StoreKind.allCases) func everyFieldOfRoomsRecordsRoundTrips(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let room = RoomRecord(
            sid: RoomSID(unchecked: "RM" + String(repeating: "1", count: 32)), uniqueName: "standup",
            maxParticipants: 7, emptyRoomTimeout: 2, unusedRoomTimeout: 9, statusCallback: "https://example.invalid/cb",
            statusCallbackMethod: .get, dateCreated: start
        ).ended(.completed, at: start.addingTimeInterval(61))
        let participant = ParticipantRecord(
            sid: ParticipantSID(unchecked: "PA" + String(repeating: "2", count: 32)), roomSID: room.sid,
            identity: "alice", name: "Alice's laptop", dateCreated: start
        ).disconnected(at: start.addingTimeInterval(60), reason: .removedByAdmin)
        let track = PublishedTrackRecord(
            sid: TrackSID(unchecked: "MT" + String(repeating: "3", count: 32)), participantSID: participant.sid,
            roomSID: room.sid, name: "camera", kind: .video, enabled: false, publisherEnabled: true, mid: "1",
            dateCreated: start)
        #expect(store.record([
            .roomRecord(room), .participantRecord(participant), .publishedTrackRecord(track),
            .notice(to: participant.sid, .subscriptionsChanged),
        ]))
        #expect(try await store.room(sid: room.sid.rawValue) == room)
        #expect(try await store.participant(roomSID: room.sid, sidOrIdentity: "alice") == participant)
        #expect(try await store.track(sid: track.sid) == track)
        #expect(store.record([.publishedTrackRemoved(room: room.sid, participant: participant.sid, track: track.sid)]))
        #expect(try await store.track(sid: track.sid) == nil)
    }
}

/// Counts failed batches (completions run on GRDB's queue).
final class FailureCount: Sendable {
    private let failures = Mutex(0)
    var count: Int { failures.withLock { $0 } }
    var note: @Sendable ((any Error)?) -> Void {
        { [self] error in if error != nil { failures.withLock { $0 += 1 } } }
    }
}
