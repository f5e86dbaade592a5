@testable import AdminAPI
import Foundation
import Logging
@testable import Persistence
import Rooms
import Testing
import VroomTesting

private let secret = "test-secret"

/// A fresh database of the test process's private PostgreSQL server.
private func newDatabase() async throws -> PostgresDatabase {
    let url = try PostgresServer.shared().createDatabase()
    var logger = Logger(label: "test.postgres")
    logger.logLevel = .warning
    return try await PostgresDatabase.connect(url: url, logger: logger)
}

/// Short delays and a fast poll so retries and take-overs happen within a test.
private func settings(giveUpAge: Duration = .seconds(60), requestTimeout: Duration = .seconds(5)) -> WebhookOutbox.Configuration {
    .init(apiSecret: secret, initialDelay: .milliseconds(50), maxDelay: .milliseconds(400), giveUpAge: giveUpAge, requestTimeout: requestTimeout)
}

private func outbox(
    _ database: PostgresDatabase, node: String, configuration: WebhookOutbox.Configuration = settings(),
    leaseMargin: Duration = .seconds(10)
) -> DatabaseWebhookOutbox {
    var logger = Logger(label: "test.webhooks.\(node)")
    logger.logLevel = .error
    return DatabaseWebhookOutbox(
        configuration: configuration, database: database, nodeID: node,
        options: .init(pollInterval: .milliseconds(100), leaseMargin: leaseMargin), logger: logger)
}

/// Events `range` of one room: room-created at 0, then participants connecting.
private func roomEvents(_ roomSid: String, _ range: Range<Int>) -> [WebhookEvent] {
    let start = Date(timeIntervalSince1970: 1_795_257_000)
    let room = RoomRecord(sid: RoomSID(unchecked: roomSid), uniqueName: "name-\(roomSid)", dateCreated: start)
    return range.map { n in
        n == 0
            ? WebhookEvent.room(.roomCreated, room, at: start)
            : WebhookEvent.participant(
                .participantConnected,
                ParticipantRecord(sid: ParticipantSID(unchecked: "PA\(n)"), roomSID: room.sid, identity: "user-\(n)", dateCreated: start),
                in: room, at: start.addingTimeInterval(Double(n)))
    }
}

/// The `SequenceNumber`s and identities received, checked to be `0..<count`
/// in order, each validly signed.
private func expectInOrder(_ received: [RequestRecorder.Received], count: Int, url: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(received.map { $0.parameter("SequenceNumber") } == (0..<count).map { String($0) }, sourceLocation: sourceLocation)
    #expect(received.map { $0.parameter("ParticipantIdentity") } == [nil] + (1..<count).map { "user-\($0)" }, sourceLocation: sourceLocation)
    #expect(received.allSatisfy { WebhookSignature.isValid($0.signature ?? "", url: url, parameters: $0.parameters, secret: secret) },
            sourceLocation: sourceLocation)
}

/// The cluster's outbox (PROTOCOL.md section 8) on a real PostgreSQL with a
/// real HTTP receiver: several outbox instances on one database stand for
/// several nodes.
@Suite(.timeLimit(.minutes(2))) struct DatabaseWebhookOutboxTests {
    @Test func twoNodesDeliveringTogetherKeepEachRoomInOrder() async throws {
        let database = try await newDatabase()
        let recorder = RequestRecorder()
        let receiver = try await WebhookReceiver.start(recorder: recorder)
        let a = outbox(database, node: "NOa"), b = outbox(database, node: "NOb")
        // Both nodes lease; NOa queues rooms x and y, NOb room z.
        for ((x, y), z) in zip(zip(roomEvents("RMx", 0..<15), roomEvents("RMy", 0..<15)), roomEvents("RMz", 0..<15)) {
            a.enqueue(x, to: receiver.url("x"))
            a.enqueue(y, to: receiver.url("y"))
            b.enqueue(z, to: receiver.url("z"))
        }
        #expect(await eventually { await a.deliveredCount + b.deliveredCount == 45 })
        for name in ["x", "y", "z"] {
            expectInOrder(await recorder.accepted(name), count: 15, url: receiver.url(name))
        }
        let (deliveredA, deliveredB) = (await a.deliveredCount, await b.deliveredCount)
        #expect(deliveredA > 0 && deliveredB > 0, "both nodes delivered")
        #expect(await eventually { await a.pendingCount == 0 })
        #expect(await eventually { await b.pendingCount == 0 })
        await a.shutdown(gracePeriod: .seconds(2))
        await b.shutdown(gracePeriod: .seconds(2))
        await receiver.stop()
        #expect(await recorder.received.count == 45, "each exactly once when every attempt succeeds")
    }

    @Test func sequenceNumbersContinueWhenTheRoomMovesToAnotherNode() async throws {
        let database = try await newDatabase()
        let recorder = RequestRecorder()
        let receiver = try await WebhookReceiver.start(recorder: recorder)
        let first = outbox(database, node: "NOa")
        for event in roomEvents("RMm", 0..<3) { first.enqueue(event, to: receiver.url("m")) }
        #expect(await eventually { await first.deliveredCount == 3 })
        await first.shutdown(gracePeriod: .seconds(2))
        // The room goes on on another node (another process: nothing in memory is shared).
        let second = outbox(database, node: "NOb")
        for event in roomEvents("RMm", 3..<6) { second.enqueue(event, to: receiver.url("m")) }
        #expect(await eventually { await second.deliveredCount == 3 })
        expectInOrder(await recorder.accepted("m"), count: 6, url: receiver.url("m"))
        await second.shutdown(gracePeriod: .seconds(2))
        await receiver.stop()
    }

    @Test func aDeadNodesLeaseExpiresAndAnotherNodeDelivers() async throws {
        let database = try await newDatabase()
        let recorder = RequestRecorder()
        let receiver = try await WebhookReceiver.start(recorder: recorder)
        let url = receiver.url("dead")
        // The "dead" node wrote 4 callbacks and leased the first, then
        // stopped (no process behind it delivers or releases anything).
        let dead = PostgresWebhookStore(database: database, nodeID: "NOdead")
        for (n, event) in roomEvents("RMd", 0..<4).enumerated() {
            #expect(dead.enqueue(.init(roomSID: "RMd", queueURL: url, numbered: true, endsNumbering: false) { number in
                WebhookSender.signed(event, sequenceNumber: number ?? -n, url: url, method: .post, secret: secret)
            }))
        }
        await dead.caughtUp(within: .seconds(10))
        let leased = try await dead.lease(limit: 10, length: .seconds(3))
        #expect(leased.map(\.sequenceNumber) == [0], "only the head of the room's queue")
        let leasedAt = ContinuousClock.now

        let alive = outbox(database, node: "NOalive")
        // Nothing of the room is delivered while the lease holds: not its head, and not the rows behind it.
        try await Task.sleep(for: .seconds(2))
        #expect(await recorder.all("dead").isEmpty, "a leased head blocks its queue until the lease expires")
        #expect(await eventually { await alive.deliveredCount == 4 })
        #expect(ContinuousClock.now - leasedAt >= .seconds(3) - .milliseconds(200))
        expectInOrder(await recorder.accepted("dead"), count: 4, url: url)
        await alive.shutdown(gracePeriod: .seconds(2))
        await receiver.stop()
    }

    @Test func aFailingReceiverIsRetriedWithBackoffThenGetsEverythingInOrder() async throws {
        let database = try await newDatabase()
        let recorder = RequestRecorder()
        let receiver = try await WebhookReceiver.start(recorder: recorder)
        await recorder.failNext(4, for: "flaky")
        let node = outbox(database, node: "NOa")
        for event in roomEvents("RMf", 0..<5) { node.enqueue(event, to: receiver.url("flaky")) }
        #expect(await eventually { await node.deliveredCount == 5 })
        let all = await recorder.all("flaky")
        #expect(all.prefix(5).map { $0.parameter("SequenceNumber") } == ["0", "0", "0", "0", "0"],
                "the head is retried, nothing behind it overtakes")
        expectInOrder(await recorder.accepted("flaky"), count: 5, url: receiver.url("flaky"))
        #expect(await node.failedCount == 0)
        await node.shutdown(gracePeriod: .seconds(2))
        await receiver.stop()
    }

    @Test func aReceiverDownForAWhileGetsEverythingWhenItComesBack() async throws {
        let database = try await newDatabase()
        let down = try DeadPort(listening: false)
        // Refused attempts while it is down (a refusal is immediate). The
        // default 5 s request timeout: with 1 s, a first answer slowed past
        // it on a loaded CI machine was delivered again (at least once, as
        // designed), and the exact sequence this test checks saw the head twice.
        let node = outbox(database, node: "NOa")
        let url = down.url("late")
        for event in roomEvents("RMl", 0..<5) { node.enqueue(event, to: url) }
        try await Task.sleep(for: .milliseconds(2_500))
        #expect(await node.deliveredCount == 0)
        // The stored rows are counted by the loop about once a second, late under load.
        #expect(await eventually { await node.pendingCount == 5 })
        #expect(await node.deliveredCount == 0)
        let recorder = RequestRecorder()
        let receiver = try await WebhookReceiver.start(recorder: recorder, port: down.port)
        #expect(await eventually { await node.deliveredCount == 5 })
        expectInOrder(await recorder.accepted("late"), count: 5, url: url)
        #expect(await node.failedCount == 0)
        await node.shutdown(gracePeriod: .seconds(2))
        await receiver.stop()
    }

    @Test func aHangingURLOfOneRoomDoesNotDelayAnother() async throws {
        let database = try await newDatabase()
        let hanging = try DeadPort(listening: true)
        let recorder = RequestRecorder()
        let receiver = try await WebhookReceiver.start(recorder: recorder)
        let node = outbox(database, node: "NOa", configuration: settings(requestTimeout: .seconds(20)))
        for event in roomEvents("RMh", 0..<3) { node.enqueue(event, to: hanging.url("stuck")) }
        for event in roomEvents("RMo", 0..<3) { node.enqueue(event, to: receiver.url("ok")) }
        let started = ContinuousClock.now
        #expect(await eventually(timeout: .seconds(5)) { await node.deliveredCount == 3 })
        #expect(ContinuousClock.now - started < .seconds(5))
        expectInOrder(await recorder.accepted("ok"), count: 3, url: receiver.url("ok"))
        await node.shutdown(gracePeriod: .milliseconds(200))
        await receiver.stop()
    }

    @Test func aReceiverThatStaysDownIsGivenUpAtTheAgeLimitAndCounted() async throws {
        let database = try await newDatabase()
        let down = try DeadPort(listening: false)
        let node = outbox(database, node: "NOa", configuration: settings(giveUpAge: .seconds(2), requestTimeout: .seconds(1)))
        let started = ContinuousClock.now
        for event in roomEvents("RMg", 0..<2) { node.enqueue(event, to: down.url("gone")) }
        #expect(await eventually { await node.pendingCount > 0 })
        try await Task.sleep(until: started + .milliseconds(1_500))
        #expect(await node.failedCount == 0, "not given up before giveUpAge")
        #expect(await eventually { await node.failedCount == 2 })
        #expect(ContinuousClock.now - started >= .seconds(2), "not before giveUpAge")
        #expect(await eventually { await node.pendingCount == 0 }, "given-up rows leave the table")
        #expect(await node.deliveredCount == 0)
        await node.shutdown(gracePeriod: .seconds(1))
    }

    /// A cluster node writes a batch's status callbacks in the transaction
    /// of the records they report: both land, or neither (here the
    /// database refuses the callback row), never one without the other. A
    /// node killed between two separate writes left a track's record
    /// without its `track-added`, and the node that ended the room then
    /// reported a `track-removed` nobody had been told the start of.
    @Test func statusCallbacksCommitWithTheRecordsTheyReport() async throws {
        let database = try await newDatabase()
        let history = PostgresHistoryStore(database: database)
        let recorder = RequestRecorder()
        let receiver = try await WebhookReceiver.start(recorder: recorder)
        let node = outbox(database, node: "NOa")
        try await database.client.query(
            """
            CREATE FUNCTION refuse_callback() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.room_sid = 'RMrefused' THEN RAISE EXCEPTION 'callback refused by the test'; END IF;
                RETURN NEW;
            END $$
            """)
        try await database.client.query(
            "CREATE TRIGGER refuse_callback BEFORE INSERT ON webhook_outbox FOR EACH ROW EXECUTE FUNCTION refuse_callback()")
        let start = Date(timeIntervalSince1970: 1_795_257_000)
        var outcomes: [String: (any Error)?] = [:]
        for sid in ["RMkept", "RMrefused"] {
            let room = RoomRecord(sid: RoomSID(unchecked: sid), uniqueName: "name-\(sid)", dateCreated: start)
            let callback = DatabaseWebhookOutbox.StatusCallbackWrite(.room(.roomCreated, room, at: start), to: receiver.url(sid))
            outcomes[sid] = await withCheckedContinuation { written in
                #expect(node.record([.roomRecord(room)], statusCallbacks: [callback], in: history) { written.resume(returning: $0) })
            }
        }
        #expect(outcomes["RMkept"].map { $0 == nil } == true)
        #expect(try await history.room(sid: "RMkept") != nil)
        #expect(await eventually { await recorder.accepted("RMkept").count == 1 })
        let kept = await recorder.accepted("RMkept")
        #expect(kept.map { $0.parameter("SequenceNumber") } == ["0"])
        #expect(kept.allSatisfy { WebhookSignature.isValid($0.signature ?? "", url: receiver.url("RMkept"), parameters: $0.parameters, secret: secret) })

        #expect(outcomes["RMrefused"].map { $0 != nil } == true)
        #expect(try await history.room(sid: "RMrefused") == nil, "the record went with its callback")
        let counters = try await database.client.query("SELECT count(*)::BIGINT FROM webhook_sequence WHERE room_sid = 'RMrefused'").collect()
        #expect(try counters.first?.decode(Int.self) == 0, "its SequenceNumber was not taken")
        #expect(await node.failedCount == 1)
        #expect(await eventually { await node.pendingCount == 0 })
        await node.shutdown(gracePeriod: .seconds(2))
        await receiver.stop()
    }

    @Test func messageSubscriptionsAreSharedByEveryNodeAndLimited() async throws {
        let database = try await newDatabase()
        let one = DatabaseMessageSubscriptions(database: database), two = DatabaseMessageSubscriptions(database: database)
        #expect(try await one.subscribe(participant: "PAa", callback: "https://example.com/1"))
        #expect(try await two.subscribe(participant: "PAa", callback: "https://example.com/1"), "a URL already there")
        for n in 2...MessageSubscriptions.maxPerParticipant {
            #expect(try await two.subscribe(participant: "PAa", callback: "https://example.com/\(n)"))
        }
        #expect(try await one.subscribe(participant: "PAa", callback: "https://example.com/11") == false)
        #expect(await one.callbacks(for: "PAa") == (1...10).map { "https://example.com/\($0)" })
        await two.remove(participant: "PAa")
        #expect(await one.callbacks(for: "PAa").isEmpty)
    }
}
