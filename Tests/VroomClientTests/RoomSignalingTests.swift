import Foundation
import NIOCore
import Synchronization
import Testing
import VroomTesting

@testable import VroomClient

extension ClientProcessTests {
/// The SDK against a real `vroom-server` process: the room's life without
/// media (joins, leaves, errors, messages, reconnection).
@Suite(.serialized) struct RoomSignalingTests {
    /// Records delegate calls and the queue they ran on.
    final class DelegateLog: RoomDelegate, RemoteParticipantDelegate {
        let calls = Mutex<[String]>([])
        let key: DispatchSpecificKey<String>
        let expectedQueue: String
        let offQueue = Mutex(0)

        init(queue: DispatchQueue, label: String) {
            key = DispatchSpecificKey<String>()
            expectedQueue = label
            queue.setSpecific(key: key, value: label)
        }

        private func record(_ call: String) {
            if DispatchQueue.getSpecific(key: key) != expectedQueue { offQueue.withLock { $0 += 1 } }
            calls.withLock { $0.append(call) }
        }

        func roomDidConnect(room: Room) { record("didConnect") }
        func roomDidFailToConnect(room: Room, error: VideoError) { record("didFailToConnect(\(error.code))") }
        func roomDidDisconnect(room: Room, error: VideoError?) { record("didDisconnect(\(error.map { "\($0.code)" } ?? "nil"))") }
        func participantDidConnect(room: Room, participant: RemoteParticipant) {
            participant.delegate = self
            record("participantDidConnect(\(participant.identity))")
        }
        func participantDidDisconnect(room: Room, participant: RemoteParticipant) {
            record("participantDidDisconnect(\(participant.identity))")
        }
        func didReceiveMessage(room: Room, message: RoomMessage) { record("didReceiveMessage(\(message.content))") }
        func didSendMessage(room: Room, id: String, sid: String) { record("didSendMessage(\(sid.prefix(2)))") }
        func didFailToSendMessage(room: Room, id: String, error: VideoError) { record("didFailToSendMessage(\(error.code))") }
    }

    @Test func twoClientsSeeEachOtherJoinAndLeaveOnTheDelegateQueue() async throws {
        let harness = try await ClientHarness.start()
        defer { harness.stop() }
        let queue = DispatchQueue(label: "app.delegates")
        let log = DelegateLog(queue: queue, label: "app.delegates")
        var aliceOptions = try await harness.options("alice")
        aliceOptions.delegateQueue = queue
        let alice = harness.connect(aliceOptions, delegate: log)
        try await alice.wait(for: "alice connected") { if case .connected = $0 { true } else { false } }
        #expect(alice.room.state == .connected)
        #expect(alice.room.sid?.hasPrefix("RM") == true)
        #expect(alice.room.name == "room")
        #expect(alice.room.localParticipant?.identity == "alice")

        let bob = harness.connect(try await harness.options("bob"))
        try await bob.wait(for: "bob connected") { if case .connected = $0 { true } else { false } }
        #expect(bob.room.remoteParticipants.map(\.identity) == ["alice"], "bob learns alice from joined")
        try await alice.wait(for: "alice sees bob") { $0.name == "participantConnected(bob)" }
        #expect(alice.room.remoteParticipant(identity: "bob")?.sid == bob.room.localParticipant?.sid)

        bob.room.disconnect()
        try await bob.wait(for: "bob disconnected") { $0.name == "disconnected(nil)" }
        #expect(bob.room.state == .disconnected)
        try await alice.wait(for: "alice sees bob leave") { $0.name == "participantDisconnected(bob)" }
        #expect(alice.room.remoteParticipants.isEmpty)
        bob.room.disconnect()  // idempotent
        alice.room.disconnect()
        try await alice.wait(for: "alice disconnected") { $0.name == "disconnected(nil)" }
        queue.sync {}
        #expect(
            log.calls.withLock { $0 } == [
                "didConnect", "participantDidConnect(bob)", "participantDidDisconnect(bob)", "didDisconnect(nil)",
            ])
        #expect(log.offQueue.withLock { $0 } == 0, "every delegate call ran on the options' queue")
        #expect(bob.count("disconnected(nil)") == 1)
    }

    @Test func anUnreachableServerFailsWith53000() async throws {
        // A port nobody listens on: bind one, note it, close it.
        let socket = try FreePort.tcp()
        var options = ConnectOptions(token: "x", roomName: "room")
        options.delegateQueue = DispatchQueue(label: "test")
        let room = RecordedRoom(Room.connect(to: URL(string: "http://127.0.0.1:\(socket)")!, options: options))
        let event = try await room.wait(for: "failure") { if case .failedToConnect = $0 { true } else { false } }
        #expect(event.name == "failedToConnect(53000)")
        #expect(room.room.state == .disconnected)
    }

    @Test func serverRefusalsSurfaceAsVideoErrors() async throws {
        let harness = try await ClientHarness.start()
        defer { harness.stop() }
        // 53105: a room of one is full.
        let (status, _) = try await harness.rest("POST", "/v1/Rooms", form: ["UniqueName": "solo", "MaxParticipants": "1"])
        #expect(status == 201)
        let first = harness.connect(try await harness.options("first", room: "solo"))
        try await first.wait(for: "first connected") { $0.name == "connected" }
        let second = harness.connect(try await harness.options("second", room: "solo"))
        try await second.wait(for: "room full") { $0.name == "failedToConnect(53105)" }

        // 53205: the same identity joins again; the OLDER session is told.
        let again = harness.connect(try await harness.options("first", room: "solo-2"))
        try await again.wait(for: "again connected") { $0.name == "connected" }
        let newer = harness.connect(try await harness.options("first", room: "solo-2"))
        try await newer.wait(for: "newer connected") { $0.name == "connected" }
        try await again.wait(for: "older cut off") { $0.name == "disconnected(53205)" }
        #expect(again.room.state == .disconnected)

        // A bad token: 20101 from the server.
        var bad = try await harness.options("x")
        bad.token = "not-a-jwt"
        let refused = harness.connect(bad)
        try await refused.wait(for: "token refused") { $0.name == "failedToConnect(20101)" }
        first.room.disconnect()
        newer.room.disconnect()
    }

    @Test func messagesAreSentAndReceived() async throws {
        let harness = try await ClientHarness.start()
        defer { harness.stop() }
        let alice = harness.connect(try await harness.options("alice"))
        try await alice.wait(for: "alice connected") { $0.name == "connected" }
        let bob = harness.connect(try await harness.options("bob"))
        try await alice.wait(for: "alice sees bob") { $0.name == "participantConnected(bob)" }
        try await bob.wait(for: "bob connected") { $0.name == "connected" }
        let id = alice.room.sendMessage(#"{"hello":1}"#, to: ["bob"])
        let sent = try await alice.wait(for: "sent") { if case .messageSent = $0 { true } else { false } }
        if case .messageSent(let sentID, let sid) = sent {
            #expect(sentID == id)
            #expect(sid.hasPrefix("ME"))
        }
        let received = try await bob.wait(for: "received") { if case .messageReceived = $0 { true } else { false } }
        if case .messageReceived(let message) = received {
            #expect(message.content == #"{"hello":1}"#)
            #expect(message.fromIdentity == "alice")
            #expect(message.sequenceNumber == 0)
        }
        // Not JSON: the server refuses it with 400 (PROTOCOL.md 3.5).
        let badID = alice.room.sendMessage("not json")
        let failed = try await alice.wait(for: "refused") { if case .messageFailed = $0 { true } else { false } }
        if case .messageFailed(let failedID, let error) = failed {
            #expect(failedID == badID)
            #expect(error.code == 400)
        }
        alice.room.disconnect()
        bob.room.disconnect()
    }

    @Test func aSignalingDropResumesTheSameSession() async throws {
        let harness = try await ClientHarness.start()
        defer { harness.stop() }
        let alice = harness.connect(try await harness.options("alice"))
        try await alice.wait(for: "alice connected") { $0.name == "connected" }
        let bob = harness.connect(try await harness.options("bob"))
        try await bob.wait(for: "bob connected") { $0.name == "connected" }
        try await alice.wait(for: "alice sees bob") { $0.name == "participantConnected(bob)" }
        let sid = alice.room.localParticipant?.sid
        let node = URL(string: "ws://127.0.0.1:\(harness.port)/v1/signal")
        #expect(alice.room.signalingURL == node, "one node: where connect pointed")

        alice.room.core.dropSignaling(holdingReconnectFor: .milliseconds(500))
        try await alice.wait(for: "reconnecting") { $0.name == "reconnecting(53001)" }
        #expect(alice.room.state == .reconnecting)
        try await bob.wait(for: "bob sees alice reconnecting") { $0.name == "participantReconnecting(alice)" }
        try await alice.wait(for: "reconnected") { $0.name == "reconnected" }
        #expect(alice.room.state == .connected)
        #expect(alice.room.localParticipant?.sid == sid, "same participant after a resume")
        #expect(alice.room.signalingURL == node, "resumed where it joined")
        try await bob.wait(for: "bob sees alice back") { $0.name == "participantReconnected(alice)" }
        #expect(bob.count("participantDisconnected(alice)") == 0)

        // The session works after the resume: a message gets through.
        _ = alice.room.sendMessage(#"{"after":"resume"}"#)
        try await bob.wait(for: "message after resume") { $0.name == "messageReceived(alice)" }
        alice.room.disconnect()
        bob.room.disconnect()
    }

    @Test func aMissedReconnectWindowEndsWith53001() async throws {
        let harness = try await ClientHarness.start(["--reconnect-window", "1"])
        defer { harness.stop() }
        let alice = harness.connect(try await harness.options("alice"))
        try await alice.wait(for: "connected") { $0.name == "connected" }
        alice.room.core.dropSignaling(holdingReconnectFor: .seconds(3))
        try await alice.wait(for: "reconnecting") { $0.name == "reconnecting(53001)" }
        try await alice.wait(for: "gave up", timeout: .seconds(10)) { $0.name == "disconnected(53001)" }
        #expect(alice.room.state == .disconnected)
    }

    @Test func aRoomThatEndedDuringTheDropEndsWith53106() async throws {
        let harness = try await ClientHarness.start()
        defer { harness.stop() }
        let (status, _) = try await harness.rest("POST", "/v1/Rooms", form: ["UniqueName": "ending"])
        #expect(status == 201)
        let alice = harness.connect(try await harness.options("alice", room: "ending"))
        try await alice.wait(for: "connected") { $0.name == "connected" }
        alice.room.core.dropSignaling(holdingReconnectFor: .seconds(2))
        try await alice.wait(for: "reconnecting") { $0.name == "reconnecting(53001)" }
        // Ended while alice is away: she is not told at once (no socket).
        let (ended, _) = try await harness.rest("POST", "/v1/Rooms/ending", form: ["Status": "completed"])
        #expect(ended == 202)
        try await alice.wait(for: "room gone", timeout: .seconds(10)) { $0.name == "disconnected(53106)" }
    }
}
}

/// A free TCP port on 127.0.0.1 (bound, then released).
enum FreePort {
    static func tcp() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
