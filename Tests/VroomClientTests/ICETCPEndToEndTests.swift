import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoadTestCore
import Testing
import VroomTesting

@testable import VroomClient

extension ClientProcessTests {
/// Issue 15 item 1 (PROTOCOL.md section 9), the SDK's side of ICE-TCP: an
/// active TCP connection to the server's passive candidate, RFC 4571
/// frames, and the `.automatic` policy's move to TCP when UDP goes
/// unanswered. A real `vroom-server` process; its /metrics say which way
/// the media went.
@Suite(.serialized) struct ICETCPEndToEndTests {
    static func server(_ extra: [String] = []) async throws -> (ServerProcess, Int) {
        let server = try await ClientHarness.offPool {
            try ServerProcess(arguments: ["--dev", "--http-port", "0", "--rtc-port", "0", "--rtc-workers", "1"] + extra)
        }
        let port = try await ClientHarness.offPool { try server.waitFor(#"http: listening on 127\.0\.0\.1:(\d+)"#) }
        return (server, Int(port)!)
    }

    /// The server's /metrics, parsed.
    static func metrics(_ port: Int) async throws -> PrometheusExposition {
        let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
        return try PrometheusExposition(parsing: String(decoding: data, as: UTF8.self))
    }

    static func join(_ url: URL, _ identity: String, room: String, tone: Double, _ configure: (inout ConnectOptions) -> Void)
        async throws -> RecordedRoom
    {
        let token = try await ClientHarness.offPool { try ServerProcess.devToken(identity: identity) }
        var options = ConnectOptions(token: token, roomName: room)
        options.delegateQueue = DispatchQueue(label: "test.delegate.\(identity)")
        options.videoTracks = [LocalVideoTrack(name: "camera")]
        options.audioTracks = [LocalAudioTrack(name: "mic", options: AudioTrackOptions(toneFrequency: tone))]
        configure(&options)
        return RecordedRoom(Room.connect(to: url, options: options))
    }

    /// Waits until bob decodes 60 of alice's frames and alice 60 of bob's.
    static func mediaBothWays(_ alice: RecordedRoom, _ bob: RecordedRoom, _ how: String) async throws {
        try await bob.wait(until: "bob decodes 60 of alice's frames \(how)", timeout: .seconds(20)) {
            await RoomMediaTests.framesRead(bob, from: "alice") >= 60
        }
        try await alice.wait(until: "alice decodes 60 of bob's frames \(how)", timeout: .seconds(20)) {
            await RoomMediaTests.framesRead(alice, from: "bob") >= 60
        }
    }

    /// Both clients TCP only: video and audio both ways, and the server
    /// sent not one UDP datagram.
    @Test func sdkMediaOverICETCPOnly() async throws {
        let (server, port) = try await Self.server()
        defer { server.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let alice = try await Self.join(url, "alice", room: "tcp", tone: 440) { $0.mediaTransport = .tcp }
        let bob = try await Self.join(url, "bob", room: "tcp", tone: 660) { $0.mediaTransport = .tcp }
        try await Self.mediaBothWays(alice, bob, "over ICE-TCP")
        let heard = try #require(await RoomMediaTests.received(bob, from: "alice", "mic"))
        #expect(abs((heard.audioFrequency ?? 0) - 440) < 10)
        let metrics = try await Self.metrics(port)
        let framesIn = metrics.value("vroom_tcp_frames_received_total") ?? 0
        let framesOut = metrics.value("vroom_tcp_frames_sent_total") ?? 0
        let datagramsOut = metrics.value("vroom_udp_datagrams_sent_total")
        #expect(framesIn > 300 && framesOut > 300, "TCP frames in \(framesIn), out \(framesOut)")
        #expect(datagramsOut == 0, "UDP datagrams sent: \(String(describing: datagramsOut))")
        alice.room.disconnect()
        bob.room.disconnect()
    }

    /// `.automatic` (the default) where UDP works, against a server whose
    /// ICE-TCP candidate has the same address as its UDP one (its default:
    /// ICE-TCP on the media ports): the media goes over UDP, and no TCP
    /// connection is opened. The SDK once picked the path by address and
    /// sent everything over TCP here.
    @Test func automaticStaysOnUDPWhenUDPWorks() async throws {
        let (server, port) = try await Self.server()
        defer { server.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
        // The policy is the default; the fallback's delay is not, so that a
        // loaded machine's slow first answer cannot move a client to TCP.
        let defaults: (inout ConnectOptions) -> Void = { $0.iceTCPFallbackDelay = .seconds(30) }
        let alice = try await Self.join(url, "alice", room: "udp", tone: 440, defaults)
        let bob = try await Self.join(url, "bob", room: "udp", tone: 660, defaults)
        try await Self.mediaBothWays(alice, bob, "over UDP")
        let metrics = try await Self.metrics(port)
        let accepted = metrics.value("vroom_tcp_connections_accepted_total")
        let framesIn = metrics.value("vroom_tcp_frames_received_total")
        let datagramsOut = metrics.value("vroom_udp_datagrams_sent_total") ?? 0
        #expect(accepted == 0, "ICE-TCP connections accepted: \(String(describing: accepted))")
        #expect(framesIn == 0, "TCP frames in: \(String(describing: framesIn))")
        #expect(datagramsOut > 300, "UDP datagrams sent: \(datagramsOut)")
        alice.room.disconnect()
        bob.room.disconnect()
    }

    /// `.automatic` where UDP goes into a hole (a socket that answers
    /// nothing, as a network that drops UDP would): after the fallback
    /// delay the connections check over TCP and media flows.
    @Test func automaticMovesToICETCPWhenUDPIsUnanswered() async throws {
        let (server, port) = try await Self.server()
        defer { server.stop() }
        let hole = try UDPHole()
        defer { hole.close() }
        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let blackholed: (inout ConnectOptions) -> Void = { options in
            options.mediaServerAddressOverride = "127.0.0.1:\(hole.port)"
            options.iceTCPFallbackDelay = .milliseconds(500)
        }
        let alice = try await Self.join(url, "alice", room: "fallback", tone: 440, blackholed)
        let bob = try await Self.join(url, "bob", room: "fallback", tone: 660, blackholed)
        try await Self.mediaBothWays(alice, bob, "after the move to TCP")
        #expect(hole.received() > 0, "the UDP checks went to the hole first")
        let framesIn = try await Self.metrics(port).value("vroom_tcp_frames_received_total") ?? 0
        #expect(framesIn > 300, "TCP frames in \(framesIn)")
        alice.room.disconnect()
        bob.room.disconnect()
    }

    /// The subscriber's ICE-TCP connection is reset mid-call (a relay
    /// between it and the server closes both ends): it opens another and
    /// sends a nominating check first, so the server moves the media there
    /// at once, not at the next consent check up to 5 s later.
    @Test func mediaResumesAtOnceAfterTheICETCPConnectionIsReset() async throws {
        let (server, port) = try await Self.server()
        defer { server.stop() }
        let rtcPort = try await ClientHarness.offPool {
            UInt16(try server.waitFor(#"media: 1 worker\(s\) on UDP 127\.0\.0\.1 ports (\d+)"#))!
        }
        let relay = try TCPCutRelay(to: rtcPort)
        defer { relay.close() }
        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let alice = try await Self.join(url, "alice", room: "reset", tone: 440) { $0.mediaTransport = .tcp }
        let bob = try await Self.join(url, "bob", room: "reset", tone: 660) { options in
            options.mediaTransport = .tcp
            options.mediaServerAddressOverride = "127.0.0.1:\(relay.port)"
        }
        try await bob.wait(until: "bob decodes 60 of alice's frames through the relay", timeout: .seconds(20)) {
            await RoomMediaTests.framesRead(bob, from: "alice") >= 60
        }
        // Consent checks go every 5 s: a resume that waited for one would
        // take 0-5 s, so three resumes in under 2 s each are no luck. The
        // second and third cuts come within a second of the connection
        // they cut, so the reconnect is held back 250 ms: packets must
        // flow again when that hold ends, not at the next check's
        // retransmission (about 1 s after the cut).
        let connections = relay.accepted
        var resumes: [Duration] = []
        var firstPackets: [Duration] = []
        for _ in 0..<3 {
            relay.cut()
            let cutAt = ContinuousClock.now
            let atCut = await RoomMediaTests.received(bob, from: "alice", "camera")
            let framesAtCut = atCut?.frameNumbersRead ?? 0
            var packetsAtCut = atCut?.packetsReceived ?? 0
            var firstPacket: Duration?
            try await bob.wait(until: "bob decodes 15 more frames within 2 s of a reset", timeout: .seconds(2)) {
                let now = await RoomMediaTests.received(bob, from: "alice", "camera")
                // The packets in flight at the cut land first: packets
                // counted within 30 ms of the cut (a frame's interval) are
                // not the resume.
                if firstPacket == nil, let packets = now?.packetsReceived, packets != packetsAtCut {
                    let elapsed = ContinuousClock.now - cutAt
                    if elapsed > .milliseconds(30) { firstPacket = elapsed }
                    packetsAtCut = packets
                }
                return (now?.frameNumbersRead ?? 0) >= framesAtCut + 15
            }
            resumes.append(ContinuousClock.now - cutAt)
            firstPackets.append(firstPacket ?? ContinuousClock.now - cutAt)
        }
        let milliseconds: ([Duration]) -> [String] = { $0.map { $0.formatted(.units(allowed: [.milliseconds])) } }
        print("ICE-TCP resets: packets again after \(milliseconds(firstPackets)), 15 frames decoded after \(milliseconds(resumes))")
        #expect(firstPackets.allSatisfy { $0 < .milliseconds(800) }, "packets again after \(milliseconds(firstPackets))")
        #expect(relay.accepted > connections, "bob opened a new connection")
        alice.room.disconnect()
        bob.room.disconnect()
    }

    /// TCP only, and the server offers no TCP candidate: the publication
    /// fails with 53405, not silence.
    @Test func tcpOnlyAgainstAServerWithoutICETCPFailsWith53405() async throws {
        let (server, port) = try await Self.server(["--no-ice-tcp"])
        defer { server.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let alice = try await Self.join(url, "alice", room: "notcp", tone: 440) { $0.mediaTransport = .tcp }
        try await alice.wait(for: "alice's publication fails with 53405", timeout: .seconds(15)) { event in
            if case .localTrackPublicationFailed(_, let error) = event { return error.code == 53405 }
            return false
        }
        alice.room.disconnect()
    }
}
}

/// A UDP socket on 127.0.0.1 that reads and answers nothing: where a
/// network that drops UDP sends a client's packets.
final class UDPHole: @unchecked Sendable {
    // @unchecked Sendable: the descriptor is immutable; reads are system calls.
    let descriptor: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard fd >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
        descriptor = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    /// Datagrams waiting (each read and thrown away).
    func received() -> Int {
        var count = 0
        var buffer = [UInt8](repeating: 0, count: 2048)
        while recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT)) >= 0 { count += 1 }
        return count
    }

    func close() { _ = Glibc.close(descriptor) }
}
