import Foundation
import Persistence
import Rooms
import Testing

/// A node alone restarting on its SQLite file: the rooms it had in
/// progress come back as snapshots a room service can end, and each room's
/// next status-callback `SequenceNumber` comes back with them, so the
/// callbacks that end the room number on after those sent before the stop.
@Suite struct SQLiteRestartTests {
    private let start = Date(timeIntervalSince1970: 1_795_257_000)

    private func temporaryPath() throws -> (directory: URL, path: String) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vroom-restart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return (url, url.appendingPathComponent("history.sqlite").path)
    }

    private static func callbacks(_ events: [RoomEvent]) -> [StatusCallback] {
        events.compactMap { if case .statusCallback(let callback) = $0 { callback } else { nil } }
    }

    private static func write(_ events: [RoomEvent], to store: SQLiteHistoryStore) async throws {
        let error: (any Error)? = await withCheckedContinuation { written in
            let queued = store.record(events) { written.resume(returning: $0) }
            #expect(queued)
            if !queued { written.resume(returning: nil) }
        }
        if let error { throw error }
    }

    @Test func aRestartFindsTheRoomsInProgressAndWhereTheirCallbacksStopped() async throws {
        let (directory, path) = try temporaryPath()
        defer { try? FileManager.default.removeItem(at: directory) }
        var service = RoomService(generator: SystemRandomNumberGenerator())
        var before: [RoomEvent] = []
        let hooked = try service.createRoom(uniqueName: "hooked", statusCallback: "http://127.0.0.1:9/status", now: start)
        before += hooked.events
        let alice = try service.join(roomName: "hooked", identity: "alice", now: start.addingTimeInterval(1))
        let published = try service.publish(
            participant: alice.value.participant.sid,
            tracks: [TrackRequest(mid: "0", name: "camera", kind: "video")], now: start.addingTimeInterval(2))
        let bob = try service.join(roomName: "hooked", identity: "bob", now: start.addingTimeInterval(3))
        before += alice.events + published.events + bob.events
        before += service.leave(participant: bob.value.participant.sid, now: start.addingTimeInterval(4))
        // Without a callback URL: in progress, but nothing to number.
        let plain = try service.join(roomName: "plain", identity: "carol", now: start.addingTimeInterval(5))
        before += plain.events
        // Ended before the stop: neither a snapshot nor a number.
        let ended = try service.createRoom(uniqueName: "ended", statusCallback: "http://127.0.0.1:9/ended", now: start)
        before += ended.events + (try service.completeRoom("ended", now: start.addingTimeInterval(6))).events
        let hookedCallbacks = Self.callbacks(before).filter { $0.roomSID == hooked.value.sid }
        #expect(hookedCallbacks.map(\.event) == [.roomCreated, .participantConnected, .trackAdded, .participantConnected, .participantDisconnected])
        let sentBefore = hookedCallbacks.count

        // One batch per operation, as the recorder writes them.
        let first = try SQLiteHistoryStore(path: path)
        for event in before { try await Self.write([event], to: first) }

        // The restart: a new store on the same file, a new room service.
        let reopened = try SQLiteHistoryStore(path: path)
        #expect(try await reopened.nextCallbackSequenceNumbers() == [hooked.value.sid.rawValue: sentBefore])
        let snapshots = try await reopened.interruptedRooms()
        #expect(snapshots.map(\.room.uniqueName) == ["hooked", "plain"])
        let snapshot = try #require(snapshots.first)
        #expect(snapshot.participants.map(\.record.identity) == ["alice"])
        #expect(snapshot.participants.first?.tracks.map(\.sid) == published.value.map(\.sid))

        var restarted = RoomService(generator: SystemRandomNumberGenerator())
        let now = start.addingTimeInterval(60)
        var ending: [RoomEvent] = []
        for snapshot in snapshots {
            ending += try restarted.fail(snapshot, now: now)
        }
        #expect(Self.callbacks(ending).map(\.event) == [.trackRemoved, .participantDisconnected, .roomEnded])
        try await Self.write(ending, to: reopened)
        // room-ended took the room's number with it; nothing is left to sweep.
        #expect(try await reopened.nextCallbackSequenceNumbers().isEmpty)
        let swept = try await reopened.markInterrupted(now: now)
        #expect(swept.roomSids.isEmpty && swept.participantCount == 0)
        let failed = try #require(try await reopened.room(sid: hooked.value.sid.rawValue))
        #expect(failed.status == .failed && failed.endTime == now)
        let aliceNow = try #require(try await reopened.participant(roomSID: hooked.value.sid, sidOrIdentity: "alice"))
        #expect(aliceNow.status == .disconnected && aliceNow.endTime == now)
        #expect(try await reopened.tracks(participantSID: alice.value.participant.sid).isEmpty)
        #expect(try await reopened.room(sid: plain.value.room.sid.rawValue)?.status == .failed)
    }

    /// The sweep after the service ended what it could: a room left in
    /// progress reads failed, and its number goes with it.
    @Test func theSweepDropsTheNumbersOfTheRoomsItFails() async throws {
        let store = try SQLiteHistoryStore(path: ":memory:")
        var service = RoomService(generator: SystemRandomNumberGenerator())
        let created = try service.createRoom(uniqueName: "left", statusCallback: "http://127.0.0.1:9/status", now: start)
        let alice = try service.join(roomName: "left", identity: "alice", now: start.addingTimeInterval(1))
        try await Self.write(created.events + alice.events, to: store)
        #expect(try await store.nextCallbackSequenceNumbers() == [created.value.sid.rawValue: 2])
        let swept = try await store.markInterrupted(now: start.addingTimeInterval(60))
        #expect(swept.roomSids == [created.value.sid.rawValue] && swept.participantCount == 1)
        #expect(try await store.nextCallbackSequenceNumbers().isEmpty)
        #expect(try await store.interruptedRooms().isEmpty)
    }
}
