import AdminAPI
import Foundation
import Rooms
import Testing
import Node

private let secret = "test-secret"

/// Short delays so retries happen within a test; generous give-up age and
/// request timeout unless a test is about them.
private func configuration(
    giveUpAge: Duration = .seconds(60), requestTimeout: Duration = .seconds(30), maxQueuedPerRoom: Int = 1_000
) -> WebhookOutbox.Configuration {
    .init(
        apiSecret: secret, initialDelay: .milliseconds(20), maxDelay: .milliseconds(200),
        giveUpAge: giveUpAge, requestTimeout: requestTimeout, maxQueuedPerRoom: maxQueuedPerRoom)
}

private func room(_ sid: String) -> RoomRecord {
    RoomRecord(sid: RoomSID(unchecked: sid), uniqueName: "name-\(sid)", dateCreated: t0)
}

/// `count` events of one room: room-created, then participants connecting.
private func events(_ roomSid: String, count: Int) -> [WebhookEvent] {
    let r = room(roomSid)
    return (0..<count).map { n in
        n == 0
            ? WebhookEvent.room(.roomCreated, r, at: t0)
            : WebhookEvent.participant(
                .participantConnected,
                ParticipantRecord(sid: ParticipantSID(unchecked: "PA\(n)"), roomSID: RoomSID(unchecked: roomSid), identity: "user-\(n)", dateCreated: t0),
                in: r, at: t0.addingTimeInterval(Double(n)))
    }
}

/// Checks that `received` are `count` events of one room, numbered 0..<count
/// in order, each validly signed for `url`.
private func expectInOrder(_ received: [RequestRecorder.Received], count: Int, url: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(received.map { $0.parameter("SequenceNumber") } == (0..<count).map { String($0) }, sourceLocation: sourceLocation)
    #expect(received.map { $0.parameter("ParticipantIdentity") } == [nil] + (1..<count).map { "user-\($0)" }, sourceLocation: sourceLocation)
    for request in received {
        let signed = request.method == "GET" ? url + "?" + (request.query ?? "") : url
        let parameters = request.method == "GET" ? [] : request.parameters
        #expect(WebhookSignature.isValid(request.signature ?? "", url: signed, parameters: parameters, secret: secret),
                sourceLocation: sourceLocation)
    }
}

@Suite(.timeLimit(.minutes(2))) struct WebhookOutboxTests {
    @Test func everyEventArrivesOnceInOrderPerRoomAndSigned() async throws {
        let recorder = RequestRecorder()
        let receiver = try await WebhookReceiver.start(recorder: recorder)
        let outbox = WebhookOutbox(configuration: configuration())
        let a = events("RMa", count: 20), b = events("RMb", count: 20)
        for (x, y) in zip(a, b) {
            outbox.enqueue(x, to: receiver.url("a"))
            outbox.enqueue(y, to: receiver.url("b"))
        }
        #expect(await eventually { await outbox.deliveredCount == 40 })
        let gotA = await recorder.accepted("a"), gotB = await recorder.accepted("b")
        #expect(gotA.count == 20 && gotB.count == 20)
        expectInOrder(gotA, count: 20, url: receiver.url("a"))
        expectInOrder(gotB, count: 20, url: receiver.url("b"))
        #expect(gotA.allSatisfy { $0.method == "POST" && $0.contentType == "application/x-www-form-urlencoded" })
        #expect(gotA.allSatisfy { $0.parameter("RoomSid") == "RMa" && $0.parameter("RoomName") == "name-RMa" })
        #expect(gotA.first?.parameter("StatusCallbackEvent") == "room-created")
        #expect(gotA.first?.parameter("Timestamp") == "Sat, 21 Nov 2026 10:30:00 +0000")
        #expect(await outbox.pendingCount == 0)
        #expect(await outbox.failedCount == 0)
        await outbox.shutdown()
        await receiver.stop()
        // Exactly once: nothing else arrived after the count was reached.
        #expect(await recorder.received.count == 40)
    }

    @Test func getCallbacksCarryParametersInTheSignedQuery() async throws {
        let recorder = RequestRecorder()
        let receiver = try await WebhookReceiver.start(recorder: recorder)
        let outbox = WebhookOutbox(configuration: configuration())
        for event in events("RMg", count: 3) {
            outbox.enqueue(event, to: receiver.url("g"), method: .get)
        }
        #expect(await eventually { await outbox.deliveredCount == 3 })
        let got = await recorder.accepted("g")
        #expect(got.allSatisfy { $0.method == "GET" && $0.body.isEmpty })
        expectInOrder(got, count: 3, url: receiver.url("g"))
        await outbox.shutdown()
        await receiver.stop()
    }

    @Test func messageCallbacksAreSignedJSON() async throws {
        let recorder = RequestRecorder()
        let receiver = try await WebhookReceiver.start(recorder: recorder)
        let outbox = WebhookOutbox(configuration: configuration())
        for n in 0..<3 {
            outbox.enqueue(
                MessageCallback(contentType: "application/json", content: "{\"n\":\(n)}", sequenceNumber: n,
                                participantSid: "PA1", roomSid: "RMm", timestamp: t0, sid: "ME\(n)"),
                to: receiver.url("m"))
        }
        #expect(await eventually { await outbox.deliveredCount == 3 })
        let got = await recorder.accepted("m")
        #expect(got.map(\.contentType) == Array(repeating: "application/json", count: 3))
        for (n, request) in got.enumerated() {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any])
            #expect(json["Sid"] as? String == "ME\(n)")
            #expect(json["SequenceNumber"] as? Int == n)
            #expect(json["Timestamp"] as? String == "Sat, 21 Nov 2026 10:30:00 +0000")
            #expect(request.signature == WebhookSignature.sign(url: receiver.url("m"), body: Data(request.body.utf8), secret: secret))
        }
        await outbox.shutdown()
        await receiver.stop()
    }

    @Test func receiverFailingFirstStillGetsEverythingInOrder() async throws {
        let recorder = RequestRecorder()
        await recorder.failNext(4, for: "flaky")
        let receiver = try await WebhookReceiver.start(recorder: recorder)
        let outbox = WebhookOutbox(configuration: configuration())
        for event in events("RMf", count: 6) {
            outbox.enqueue(event, to: receiver.url("flaky"))
        }
        #expect(await eventually { await outbox.deliveredCount == 6 })
        let all = await recorder.all("flaky")
        // The first event was tried 5 times (4 answered 500) before anything
        // else was sent: later events wait for it.
        #expect(all.prefix(5).map { $0.parameter("SequenceNumber") } == Array(repeating: "0", count: 5))
        #expect(all.prefix(4).allSatisfy { $0.status == 500 })
        expectInOrder(await recorder.accepted("flaky"), count: 6, url: receiver.url("flaky"))
        #expect(await outbox.failedCount == 0)
        await outbox.shutdown()
        await receiver.stop()
    }

    @Test func receiverDownForAWhileGetsEverythingLaterInOrder() async throws {
        let down = try DeadPort(listening: false)
        let outbox = WebhookOutbox(configuration: configuration())
        let url = down.url("late")
        for event in events("RMl", count: 5) {
            outbox.enqueue(event, to: url)
        }
        // A few refused attempts happen meanwhile (20, 40, 80, ... ms apart).
        try await Task.sleep(for: .milliseconds(300))
        #expect(await outbox.deliveredCount == 0)
        #expect(await outbox.pendingCount == 5)

        let recorder = RequestRecorder()
        let receiver = try await WebhookReceiver.start(recorder: recorder, port: down.port)
        #expect(await eventually { await outbox.deliveredCount == 5 })
        expectInOrder(await recorder.accepted("late"), count: 5, url: url)
        #expect(await outbox.failedCount == 0)
        await outbox.shutdown()
        await receiver.stop()
    }

    @Test func aHangingURLOfOneRoomDoesNotDelayAnother() async throws {
        let hanging = try DeadPort(listening: true)
        let recorder = RequestRecorder()
        let receiver = try await WebhookReceiver.start(recorder: recorder)
        // 30 s request timeout: room A's first request hangs far longer
        // than room B needs.
        let outbox = WebhookOutbox(configuration: configuration(requestTimeout: .seconds(30)))
        let clock = ContinuousClock()
        let start = clock.now
        for event in events("RMa", count: 5) {
            outbox.enqueue(event, to: hanging.url("a"))
        }
        for event in events("RMb", count: 10) {
            outbox.enqueue(event, to: receiver.url("b"))
        }
        #expect(await eventually(timeout: .seconds(20)) { await recorder.accepted("b").count == 10 })
        // The receiver records a request before the outbox has read its
        // response: wait for the outbox to count the last one delivered too.
        #expect(await eventually(timeout: .seconds(20)) { await outbox.deliveredCount == 10 })
        // Room B finished while room A's first request still hangs.
        #expect(clock.now - start < .seconds(30))
        #expect(await outbox.pendingCount == 5)
        expectInOrder(await recorder.accepted("b"), count: 10, url: receiver.url("b"))

        // Shutdown cancels room A's hanging request; its 5 events are failed.
        await outbox.shutdown(gracePeriod: .zero)
        #expect(await outbox.failedCount == 5)
        #expect(await outbox.pendingCount == 0)
        await receiver.stop()
    }

    @Test func givesUpAfterTheConfiguredAgeAndCountsIt() async throws {
        let down = try DeadPort(listening: false)
        let outbox = WebhookOutbox(configuration: configuration(giveUpAge: .milliseconds(500)))
        for event in events("RMx", count: 3) {
            outbox.enqueue(event, to: down.url("x"))
        }
        let clock = ContinuousClock()
        let start = clock.now
        #expect(await eventually { await outbox.failedCount == 3 })
        // Retried until at least the give-up age.
        #expect(clock.now - start >= .milliseconds(500))
        #expect(await outbox.pendingCount == 0)
        #expect(await outbox.deliveredCount == 0)
        await outbox.shutdown()
    }

    @Test func aFullQueueRefusesAndCountsNewEvents() async throws {
        let hanging = try DeadPort(listening: true)
        let outbox = WebhookOutbox(configuration: configuration(maxQueuedPerRoom: 2))
        for event in events("RMq", count: 5) {
            outbox.enqueue(event, to: hanging.url("q"))
        }
        #expect(await eventually { await outbox.failedCount == 3 })
        #expect(await outbox.pendingCount == 2)
        await outbox.shutdown(gracePeriod: .zero)
        #expect(await outbox.failedCount == 5)
    }

    @Test func sequenceNumbersCountPerRoom() async throws {
        let recorder = RequestRecorder()
        let receiver = try await WebhookReceiver.start(recorder: recorder)
        let outbox = WebhookOutbox(configuration: configuration())
        let first = room("RM1"), second = room("RM2")
        outbox.enqueue(.room(.roomCreated, first, at: t0), to: receiver.url("s"))
        outbox.enqueue(.room(.roomCreated, second, at: t0), to: receiver.url("s"))
        outbox.enqueue(.room(.roomEnded, first.ended(.completed, at: t0), at: t0), to: receiver.url("s"))
        outbox.enqueue(.room(.roomEnded, second.ended(.completed, at: t0), at: t0), to: receiver.url("s"))
        #expect(await eventually { await outbox.deliveredCount == 4 })
        let got = await recorder.accepted("s")
        let byRoom = Dictionary(grouping: got) { $0.parameter("RoomSid") ?? "" }
        #expect(byRoom["RM1"]?.map { $0.parameter("SequenceNumber") } == ["0", "1"])
        #expect(byRoom["RM2"]?.map { $0.parameter("SequenceNumber") } == ["0", "1"])
        await outbox.shutdown()
        await receiver.stop()
    }
}
