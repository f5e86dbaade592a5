import Foundation
import Persistence
import Rooms
import Testing

/// 2026-11-21 10:30:00 UTC, a whole second.
private let t0 = Date(timeIntervalSince1970: 1_795_257_000)

private func room(_ n: Int, name: String? = nil, status: RoomStatus = .completed, createdAt: Date? = nil) -> RoomRecord {
    let created = createdAt ?? t0.addingTimeInterval(Double(n) * 60)
    var record = RoomRecord(
        sid: RoomSID(unchecked: String(format: "RM%032lx", n)), uniqueName: name ?? "room-\(n)", status: .inProgress,
        maxParticipants: 10 + n, emptyRoomTimeout: 3, unusedRoomTimeout: 7,
        statusCallback: "https://example.invalid/hook?room=\(n)", statusCallbackMethod: .get,
        dateCreated: created)
    if status != .inProgress {
        record = record.ended(status, at: created.addingTimeInterval(30))
    }
    return record
}

private func participant(_ n: Int, room: RoomRecord, identity: String? = nil, status: ParticipantStatus = .connected, at offset: Double = 0) -> ParticipantRecord {
    ParticipantRecord(
        sid: ParticipantSID(unchecked: String(format: "PA%032lx", n)), roomSID: room.sid, identity: identity ?? "user-\(n)",
        status: status, dateCreated: room.dateCreated.addingTimeInterval(Double(n) + offset))
}

private func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("vroom-history-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The store test suite (issue 14): every test taking a `StoreKind` runs
/// against both stores, SQLite in memory and PostgreSQL in a private server
/// this test process starts (VroomTesting's `PostgresServer`), each test in
/// a database of its own. The others are about one store's own behaviour.
@Suite struct HistoryStoreTests {
    @Test(arguments: StoreKind.allCases) func roomRoundTripKeepsEveryField(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let inProgress = room(1, status: .inProgress)
        let ended = room(2, status: .completed)
        try await store.save(room: inProgress)
        try await store.save(room: ended)
        #expect(try await store.room(sid: inProgress.sid.rawValue) == inProgress)
        #expect(try await store.room(sid: ended.sid.rawValue) == ended)
        #expect(ended.endTime != nil && ended.duration == 30)
        #expect(try await store.room(sid: "RMmissing") == nil)
    }

    /// The contract: `completion` gets nil once a batch is written, and a
    /// batch with no history record in it (a notice, a media event) is
    /// written at once. Callers that count batches until written (the
    /// cluster's outbox counts callbacks that way) rely on it.
    @Test(.timeLimit(.minutes(1)), arguments: StoreKind.allCases) func aBatchWithoutRecordsCompletesAtOnce(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let event = RoomEvent.trackForwarding(
            room: RoomSID(unchecked: "RMx"), publisher: ParticipantSID(unchecked: "PAx"), track: TrackSID(unchecked: "MTx"), forwarded: true)
        let error: (any Error)? = await withCheckedContinuation { written in
            #expect(store.record([event]) { written.resume(returning: $0) })
        }
        #expect(error == nil)
    }

    @Test(arguments: StoreKind.allCases) func saveIsAnUpsert(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let started = room(1, status: .inProgress)
        try await store.save(room: started)
        let ended = started.ended(.completed, at: t0.addingTimeInterval(600))
        try await store.save(room: ended)
        let fetched = try #require(try await store.room(sid: started.sid.rawValue))
        #expect(fetched.status == .completed)
        #expect(fetched.duration == 600 - 60)
        #expect(try await store.rooms().items.count == 1)
    }

    @Test(arguments: StoreKind.allCases) func datesAreStoredInWholeSecondsRoundedDown(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        var record = room(1, status: .inProgress)
        record.dateCreated = t0.addingTimeInterval(0.999)
        record.dateUpdated = t0.addingTimeInterval(-0.25)
        try await store.save(room: record)
        let fetched = try #require(try await store.room(sid: record.sid.rawValue))
        #expect(fetched.dateCreated == t0)
        #expect(fetched.dateUpdated == t0.addingTimeInterval(-1))
    }

    @Test(arguments: StoreKind.allCases) func participantAndTrackRoundTrips(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let r = room(1, status: .inProgress)
        let alice = participant(1, room: r, identity: "alice")
        let gone = participant(2, room: r, identity: "bob").disconnected(at: r.dateCreated.addingTimeInterval(90))
        try await store.save(participant: alice)
        try await store.save(participant: gone)
        #expect(try await store.participant(roomSID: r.sid, sidOrIdentity: alice.sid.rawValue) == alice)
        #expect(try await store.participant(roomSID: r.sid, sidOrIdentity: "bob") == gone)
        #expect(gone.duration == 88)

        let audio = PublishedTrackRecord(
            sid: TrackSID(unchecked: String(format: "MT%032lx", 1)), participantSID: alice.sid, roomSID: r.sid,
            name: "mic", kind: .audio, dateCreated: alice.startTime)
        var video = PublishedTrackRecord(
            sid: TrackSID(unchecked: String(format: "MT%032lx", 2)), participantSID: alice.sid, roomSID: r.sid,
            name: "camera", kind: .video, dateCreated: alice.startTime.addingTimeInterval(1))
        try await store.save(track: audio)
        try await store.save(track: video)
        video.enabled = false
        video.dateUpdated = video.dateCreated.addingTimeInterval(5)
        try await store.save(track: video)
        #expect(try await store.tracks(participantSID: alice.sid) == [audio, video])
        #expect(try await store.track(sid: video.sid)?.enabled == false)
        #expect(try await store.removeTrack(sid: audio.sid))
        #expect(try await !store.removeTrack(sid: audio.sid))
        #expect(try await store.tracks(participantSID: alice.sid) == [video])
        #expect(try await store.tracks(participantSID: gone.sid).isEmpty)
    }

    @Test(arguments: StoreKind.allCases) func participantByIdentityPrefersTheCurrentSession(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let r = room(1, status: .inProgress)
        let first = participant(1, room: r, identity: "alice").disconnected(at: r.dateCreated.addingTimeInterval(5))
        let current = participant(2, room: r, identity: "alice", status: .reconnecting)
        let later = participant(3, room: r, identity: "alice").disconnected(at: r.dateCreated.addingTimeInterval(9))
        for p in [first, current, later] { try await store.save(participant: p) }
        #expect(try await store.participant(roomSID: r.sid, sidOrIdentity: "alice")?.sid == current.sid)
        try await store.save(participant: current.disconnected(at: r.dateCreated.addingTimeInterval(20)))
        // All ended: the most recent session.
        #expect(try await store.participant(roomSID: r.sid, sidOrIdentity: "alice")?.sid == later.sid)
        // SID lookups stay within the room.
        #expect(try await store.participant(roomSID: RoomSID(unchecked: "RMother"), sidOrIdentity: first.sid.rawValue) == nil)
        #expect(try await store.participant(roomSID: r.sid, sidOrIdentity: "nobody") == nil)
    }

    @Test(arguments: StoreKind.allCases) func latestRoomPrefersInProgressThenMostRecentEnded(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let old = room(1, name: "standup", status: .completed)
        let failed = room(2, name: "standup", status: .failed)
        let newest = room(3, name: "standup", status: .completed)
        for r in [old, newest, failed] { try await store.save(room: r) }
        #expect(try await store.latestRoom(uniqueName: "standup")?.sid == newest.sid)

        // An in-progress room wins even over a newer completed one (it
        // cannot really be older, but the rule must not depend on dates).
        let live = room(0, name: "standup", status: .inProgress)
        try await store.save(room: live)
        #expect(try await store.latestRoom(uniqueName: "standup")?.sid == live.sid)
        #expect(try await store.latestRoom(uniqueName: "other") == nil)
    }

    @Test(arguments: StoreKind.allCases) func roomsAreListedNewestFirstWithFilters(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let rooms = (0..<10).map { room($0, name: $0 % 2 == 0 ? "even" : "odd", status: $0 < 8 ? .completed : .inProgress) }
        for r in rooms.shuffled() { try await store.save(room: r) }

        let all = try await store.rooms()
        #expect(all.items.map(\.sid) == rooms.reversed().map(\.sid))
        #expect(!all.hasNextPage)

        #expect(try await store.rooms(status: .inProgress).items.map(\.sid) == [rooms[9].sid, rooms[8].sid])
        #expect(try await store.rooms(status: .failed).items.isEmpty)
        #expect(try await store.rooms(uniqueName: "even").items.map(\.sid) == [8, 6, 4, 2, 0].map { rooms[$0].sid })
        #expect(try await store.rooms(status: .completed, uniqueName: "odd").items.count == 4)

        // After is inclusive, before exclusive (Twilio: "on or after", "before").
        let between = try await store.rooms(createdAfter: rooms[3].dateCreated, createdBefore: rooms[6].dateCreated)
        #expect(between.items.map(\.sid) == [5, 4, 3].map { rooms[$0].sid })
    }

    @Test(arguments: StoreKind.allCases) func sameSecondRoomsKeepInsertionOrder(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let rooms = (0..<3).map { room($0, createdAt: t0) }
        for r in rooms { try await store.save(room: r) }
        #expect(try await store.rooms().items.map(\.sid) == rooms.reversed().map(\.sid))
    }

    @Test(arguments: StoreKind.allCases) func pagingAtBoundaries(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let rooms = (0..<7).map { room($0) }
        for r in rooms { try await store.save(room: r) }
        let newestFirst = rooms.reversed().map(\.sid)

        let p0 = try await store.rooms(page: 0, pageSize: 3)
        let p1 = try await store.rooms(page: 1, pageSize: 3)
        let p2 = try await store.rooms(page: 2, pageSize: 3)
        let p3 = try await store.rooms(page: 3, pageSize: 3)
        #expect(p0.items.map(\.sid) == Array(newestFirst[0..<3]))
        #expect(p1.items.map(\.sid) == Array(newestFirst[3..<6]))
        #expect(p2.items.map(\.sid) == [newestFirst[6]])
        #expect(p3.items.isEmpty)
        #expect([p0, p1, p2, p3].map(\.hasNextPage) == [true, true, false, false])

        // Exactly full last page: no next page.
        let exact = try await store.rooms(page: 0, pageSize: 7)
        #expect(exact.items.count == 7 && !exact.hasNextPage)
        // Out-of-range arguments are clamped rather than failing.
        let clamped = try await store.rooms(page: -4, pageSize: 0)
        #expect(clamped.page == 0 && clamped.pageSize == 1 && clamped.items.map(\.sid) == [newestFirst[0]])
        #expect(try await store.rooms(pageSize: 5_000).pageSize == 1_000)
        #expect(try await store.rooms(page: Int.max, pageSize: 1_000).items.isEmpty)
        // An empty database: one empty page.
        let empty = try await kind.makeStore().rooms()
        #expect(empty.items.isEmpty && !empty.hasNextPage)
    }

    @Test(arguments: StoreKind.allCases) func participantsAreListedInJoinOrderWithFilters(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let r = room(1, status: .inProgress)
        let other = room(2, status: .inProgress)
        let people = (0..<5).map {
            participant($0, room: r, identity: $0 == 3 ? "user-1" : nil, status: $0 == 2 ? .reconnecting : .connected)
        }
        for p in people.shuffled() { try await store.save(participant: p) }
        try await store.save(participant: participant(9, room: other))
        try await store.save(participant: people[4].disconnected(at: t0.addingTimeInterval(500)))

        #expect(try await store.participants(roomSID: r.sid).items.map(\.sid) == people.map(\.sid))
        #expect(try await store.participants(roomSID: r.sid, status: .connected).items.map(\.sid) == [0, 1, 3].map { people[$0].sid })
        #expect(try await store.participants(roomSID: r.sid, status: .reconnecting).items.map(\.sid) == [people[2].sid])
        #expect(try await store.participants(roomSID: r.sid, status: .disconnected).items.map(\.sid) == [people[4].sid])
        #expect(try await store.participants(roomSID: r.sid, identity: "user-1").items.map(\.sid) == [people[1].sid, people[3].sid])
        let page1 = try await store.participants(roomSID: r.sid, page: 1, pageSize: 2)
        #expect(page1.items.map(\.sid) == [people[2].sid, people[3].sid] && page1.hasNextPage)
        #expect(try await store.participants(roomSID: RoomSID(unchecked: "RMnone")).items.isEmpty)
        #expect(try await store.participants(roomSID: r.sid, createdAfter: people[3].dateCreated).items.count == 2)
    }

    @Test func restartMarksInProgressRoomsFailedAndLeavesCompletedOnes() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("vroom.sqlite").path

        let live = room(1, status: .inProgress)
        let done = room(2, status: .completed)
        let alice = participant(1, room: live, identity: "alice")
        let bob = participant(2, room: live, identity: "bob", status: .reconnecting)
        let carol = participant(3, room: live, identity: "carol").disconnected(at: live.dateCreated.addingTimeInterval(10))
        let dave = participant(4, room: done, identity: "dave").disconnected(at: done.endTime!)
        do {
            let store = try SQLiteHistoryStore(path: path)
            try await store.save(room: live)
            try await store.save(room: done)
            for p in [alice, bob, carol, dave] { try await store.save(participant: p) }
        }  // the store (and its connections) is released here: the "server stopped"

        let restartedAt = live.dateCreated.addingTimeInterval(3_600)
        let store = try SQLiteHistoryStore(path: path)
        let changed = try await store.markInterrupted(now: restartedAt)
        #expect(changed.roomSids == [live.sid.rawValue])
        #expect(changed.participantCount == 2)

        let failed = try #require(try await store.room(sid: live.sid.rawValue))
        #expect(failed.status == .failed)
        #expect(failed.endTime == restartedAt)
        #expect(failed.dateUpdated == restartedAt)
        #expect(failed.duration == 3_600)
        #expect(try await store.room(sid: done.sid.rawValue) == done)

        let a = try #require(try await store.participant(roomSID: live.sid, sidOrIdentity: alice.sid.rawValue))
        let b = try #require(try await store.participant(roomSID: live.sid, sidOrIdentity: bob.sid.rawValue))
        #expect(a.status == .disconnected && a.endTime == restartedAt && a.duration == 3_599)
        #expect(b.status == .disconnected && b.endTime == restartedAt)
        #expect(try await store.participant(roomSID: live.sid, sidOrIdentity: carol.sid.rawValue) == carol)
        #expect(try await store.participant(roomSID: done.sid, sidOrIdentity: dave.sid.rawValue) == dave)
        #expect(try await store.rooms(status: .inProgress).items.isEmpty)

        // A second restart changes nothing more.
        let again = try await SQLiteHistoryStore(path: path).markInterrupted(now: restartedAt.addingTimeInterval(60))
        #expect(again.roomSids.isEmpty && again.participantCount == 0)
        #expect(try await store.room(sid: live.sid.rawValue)?.endTime == restartedAt)
    }

    @Test func restartDeletesThePublicationsOfInterruptedParticipantsOnly() async throws {
        let store = try SQLiteHistoryStore(path: ":memory:")
        let live = room(1, status: .inProgress)
        let alice = participant(1, room: live, identity: "alice")
        let bob = participant(2, room: live, identity: "bob", status: .reconnecting)
        // carol left, but a (stale) row of hers stays: markInterrupted touches only live sessions.
        let carol = participant(3, room: live, identity: "carol").disconnected(at: live.dateCreated.addingTimeInterval(10))
        for p in [alice, bob, carol] { try await store.save(participant: p) }
        for (n, p) in [alice, bob, carol].enumerated() {
            try await store.save(track: PublishedTrackRecord(
                sid: TrackSID(unchecked: String(format: "MT%032lx", n + 1)), participantSID: p.sid, roomSID: live.sid,
                name: "mic", kind: .audio, dateCreated: p.startTime))
        }
        let changed = try await store.markInterrupted(now: live.dateCreated.addingTimeInterval(60))
        #expect(changed.participantCount == 2)
        #expect(try await store.tracks(participantSID: alice.sid).isEmpty)
        #expect(try await store.tracks(participantSID: bob.sid).isEmpty)
        #expect(try await store.tracks(participantSID: carol.sid).count == 1)
    }

    @Test func openingTheSameFileAgainKeepsData() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("history.sqlite").path
        let first = try SQLiteHistoryStore(path: path)
        try await first.save(room: room(1))
        // Migrations already applied are skipped, also while another
        // store has the file open.
        let second = try SQLiteHistoryStore(path: path)
        let third = try SQLiteHistoryStore(path: path)
        #expect(try await second.rooms().items.count == 1)
        try await third.save(room: room(2))
        #expect(try await first.rooms().items.count == 2)
        #expect(second.path == path)
    }

    @Test(arguments: StoreKind.allCases) func everyStatusAndKindRoundTrips(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        for (n, status) in RoomStatus.allCases.enumerated() {
            try await store.save(room: room(n, status: status))
            #expect(try await store.room(sid: room(n).sid.rawValue)?.status == status)
        }
        let r = room(9, status: .inProgress)
        for (n, status) in ParticipantStatus.allCases.enumerated() {
            try await store.save(participant: participant(n, room: r, status: status))
            #expect(try await store.participant(roomSID: r.sid, sidOrIdentity: "user-\(n)")?.status == status)
        }
        for (n, kind) in TrackKind.allCases.enumerated() {
            let track = PublishedTrackRecord(
                sid: TrackSID(unchecked: "MT\(n)"), participantSID: ParticipantSID(unchecked: "PA"), roomSID: r.sid,
                name: "t\(n)", kind: kind, enabled: n == 1,
                dateCreated: t0)
            try await store.save(track: track)
            #expect(try await store.track(sid: track.sid) == track)
        }
    }
}
