import Foundation
import Rooms
import Testing

@Suite struct MessageTests {
    let json = "application/json"

    @Test func broadcastReachesEveryoneElseWithSequenceNumbersFromZero() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        let carol = try join(&service, "carol")
        let first = try service.sendMessage(from: alice.sid, content: #"{"k":1}"#, contentType: json, now: at(1))
        #expect(first.value.sequenceNumber == 0)
        #expect(first.value.sid.rawValue.hasPrefix("ME"))
        #expect(first.value.recipients == [bob.sid, carol.sid])
        #expect(first.events.notices(to: bob.sid) == [.message(first.value)])
        #expect(first.events.notices(to: alice.sid).isEmpty)
        #expect(first.events.contains(.messageSent(first.value)))
        let second = try service.sendMessage(from: alice.sid, content: "[]", contentType: json, to: ["bob"], now: at(2))
        #expect(second.value.sequenceNumber == 1)
        #expect(second.value.recipients == [bob.sid])
        // Bob's counter is his own.
        #expect(try service.sendMessage(from: bob.sid, content: "1", contentType: json, now: at(3)).value.sequenceNumber == 0)
    }

    @Test func toSkipsUnknownIdentitiesAndNeverTheSender() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let bob = try join(&service, "bob")
        try join(&service, "eve", room: "elsewhere")
        let outcome = try service.sendMessage(from: alice.sid, content: "{}", contentType: json, to: ["alice", "nobody", "eve", "bob"], now: at(1))
        #expect(outcome.value.recipients == [bob.sid])
        #expect(outcome.events.noticeAddressees == [bob.sid])
        let none = try service.sendMessage(from: alice.sid, content: "{}", contentType: json, to: [], now: at(2))
        #expect(none.value.recipients.isEmpty)
    }

    @Test func checksInOrderNotJoinedThenContentThenSizeThenRate() throws {
        var service = makeService { $0.maxMessagesPerWindow = 2 }
        let alice = try join(&service, "alice")
        let tooBig = "\"" + String(repeating: "x", count: 10_240) + "\""
        // Not joined beats everything.
        expectRefusal(.notJoined) { _ = try service.sendMessage(from: nil, content: "nope", contentType: "text/plain", now: at(1)) }
        // Invalid content beats size.
        expectRefusal(.invalidContent) { _ = try service.sendMessage(from: alice.sid, content: tooBig + "x", contentType: json, now: at(1)) }
        expectRefusal(.invalidContent) { _ = try service.sendMessage(from: alice.sid, content: "{}", contentType: "text/plain", now: at(1)) }
        // Fill the rate window.
        _ = try service.sendMessage(from: alice.sid, content: "1", contentType: json, now: at(1))
        _ = try service.sendMessage(from: alice.sid, content: "2", contentType: "application/json; charset=utf-8", now: at(2))
        // Size beats rate.
        expectRefusal(.payloadTooLarge) { _ = try service.sendMessage(from: alice.sid, content: tooBig, contentType: json, now: at(3)) }
        expectRefusal(.rateLimited) { _ = try service.sendMessage(from: alice.sid, content: "3", contentType: json, now: at(3)) }
    }

    @Test func sizeLimitIsInUTF8Bytes() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        // 10,240 bytes exactly: "…" with 10,238 ASCII bytes inside.
        let exact = "\"" + String(repeating: "x", count: 10_238) + "\""
        _ = try service.sendMessage(from: alice.sid, content: exact, contentType: json, now: at(1))
        // 5,119 two-byte scalars + quotes = 10,240 bytes: fine; one more is 10,242.
        _ = try service.sendMessage(from: alice.sid, content: "\"" + String(repeating: "é", count: 5_119) + "\"", contentType: json, now: at(2))
        expectRefusal(.payloadTooLarge) {
            _ = try service.sendMessage(from: alice.sid, content: "\"" + String(repeating: "é", count: 5_120) + "\"", contentType: json, now: at(3))
        }
    }

    @Test func rollingWindowOfTenPerSixtySeconds() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        for second in 0..<10 {
            _ = try service.sendMessage(from: alice.sid, content: "\(second)", contentType: json, now: at(Double(second)))
        }
        expectRefusal(.rateLimited) { _ = try service.sendMessage(from: alice.sid, content: "10", contentType: json, now: at(59.9)) }
        // The first message (t=0) leaves the window at t=60.
        let accepted = try service.sendMessage(from: alice.sid, content: "11", contentType: json, now: at(60))
        // Refused messages used no sequence number.
        #expect(accepted.value.sequenceNumber == 10)
        expectRefusal(.rateLimited) { _ = try service.sendMessage(from: alice.sid, content: "12", contentType: json, now: at(60.5)) }
        _ = try service.sendMessage(from: alice.sid, content: "13", contentType: json, now: at(61))
    }

    @Test func refusedMessagesDoNotCountTowardTheRate() throws {
        var service = makeService { $0.maxMessagesPerWindow = 1 }
        let alice = try join(&service, "alice")
        for _ in 0..<5 {
            expectRefusal(.invalidContent) { _ = try service.sendMessage(from: alice.sid, content: "{", contentType: json, now: at(1)) }
        }
        let ok = try service.sendMessage(from: alice.sid, content: "{}", contentType: json, now: at(1))
        #expect(ok.value.sequenceNumber == 0)
    }

    @Test func aGoneParticipantIsNotJoined() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        _ = service.leave(participant: alice.sid, now: at(1))
        expectRefusal(.notJoined) { _ = try service.sendMessage(from: alice.sid, content: "{}", contentType: json, now: at(2)) }
    }

    @Test func serverMessagesHaveTheSameLimitsAndTheirOwnCounter() throws {
        var service = makeService { $0.maxMessagesPerWindow = 2 }
        let alice = try join(&service, "alice")
        let first = try service.sendServerMessage(to: alice.sid, content: "{}", contentType: json, now: at(1))
        #expect(first.value.from == nil && first.value.recipients == [alice.sid] && first.value.sequenceNumber == 0)
        #expect(first.events.notices(to: alice.sid) == [.message(first.value)])
        expectRefusal(.invalidContent) { _ = try service.sendServerMessage(to: alice.sid, content: "x", contentType: json, now: at(1)) }
        expectRefusal(.payloadTooLarge) {
            _ = try service.sendServerMessage(to: alice.sid, content: "\"" + String(repeating: "x", count: 10_240) + "\"", contentType: json, now: at(1))
        }
        #expect(try service.sendServerMessage(to: alice.sid, content: "{}", contentType: json, now: at(2)).value.sequenceNumber == 1)
        expectRefusal(.rateLimited) { _ = try service.sendServerMessage(to: alice.sid, content: "{}", contentType: json, now: at(3)) }
        // Alice's own sending is counted apart.
        #expect(try service.sendMessage(from: alice.sid, content: "{}", contentType: json, now: at(3)).value.sequenceNumber == 0)
        _ = service.leave(participant: alice.sid, now: at(4))
        expectRefusal(.notJoined) { _ = try service.sendServerMessage(to: alice.sid, content: "{}", contentType: json, now: at(5)) }
    }
}
