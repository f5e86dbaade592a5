import Foundation
import Testing
import VroomTesting

@testable import VroomClient

extension ClientProcessTests {
/// Issue 15 item 3 (PROTOCOL.md section 9): SDK clients whose media goes
/// over IPv6 only, on ::1. The server's media worker listens on ::1 alone
/// and announces only it; the SDK's media sockets are bound to ::1, so
/// they can neither send nor receive over IPv4. Signaling stays on
/// 127.0.0.1 here: swift-websocket's URL parser takes no IPv6 literal
/// (`ws://[::1]:…`), so the SDK reaches an IPv6-only server by a host name
/// (the `ipv6` interop scenario runs a client on ::1 for both).
@Suite(.serialized) struct IPv6EndToEndTests {
    /// Whether this machine has IPv6 on loopback (a kernel or container
    /// without it cannot run these).
    static let hasIPv6Loopback: Bool = (try? UDPProbe.bindIPv6Loopback()) ?? false

    @Test(.enabled(if: hasIPv6Loopback, "no IPv6 on loopback here"))
    func sdkMediaOverIPv6LoopbackOnly() async throws {
        let server = try await ClientHarness.offPool {
            try ServerProcess(arguments: [
                "--dev", "--http-port", "0", "--rtc-address", "::1", "--rtc-port", "0",
                "--rtc-workers", "1",
            ])
        }
        defer { server.stop() }
        let port = try await ClientHarness.offPool { try server.waitFor(#"http: listening on 127\.0\.0\.1:(\d+)"#) }
        _ = try await ClientHarness.offPool { try server.waitFor(#"media: 1 worker\(s\) on UDP ::1 ports \d+, announcing (::1)[;\n]"#) }
        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))

        var rooms: [RecordedRoom] = []
        for (identity, tone) in [("alice", 440.0), ("bob", 660.0)] {
            let token = try await ClientHarness.offPool { try ServerProcess.devToken(identity: identity) }
            var options = ConnectOptions(token: token, roomName: "v6")
            options.delegateQueue = DispatchQueue(label: "test.delegate.\(identity)")
            options.mediaBindHost = "::1"
            options.videoTracks = [LocalVideoTrack(name: "camera")]
            options.audioTracks = [LocalAudioTrack(name: "mic", options: AudioTrackOptions(toneFrequency: tone))]
            rooms.append(RecordedRoom(Room.connect(to: url, options: options)))
        }
        let (alice, bob) = (rooms[0], rooms[1])
        try await bob.wait(until: "bob decodes 60 of alice's frames over IPv6", timeout: .seconds(20)) {
            await RoomMediaTests.framesRead(bob, from: "alice") >= 60
        }
        try await alice.wait(until: "alice decodes 60 of bob's frames over IPv6", timeout: .seconds(20)) {
            await RoomMediaTests.framesRead(alice, from: "bob") >= 60
        }
        let heard = try #require(await RoomMediaTests.received(bob, from: "alice", "mic"))
        #expect(abs((heard.audioFrequency ?? 0) - 440) < 10)
        alice.room.disconnect()
        bob.room.disconnect()
    }

    /// IPv6 announced with IPv4-only workers is refused at start: a
    /// candidate nobody could reach.
    @Test func anIPv6AnnounceWithIPv4OnlyWorkersIsAConfigurationError() async throws {
        let server = try await ClientHarness.offPool {
            try ServerProcess(arguments: [
                "--dev", "--http-port", "0", "--rtc-port", "0", "--rtc-workers", "1", "--announce-ip", "2001:db8::1",
            ])
        }
        defer { server.stop() }
        let exited = try await ClientHarness.offPool { server.waitForExit(seconds: 20) }
        #expect(exited && server.process.terminationStatus == 1)
        #expect(server.output.contains("--announce-ip 2001:db8::1 is IPv6, but the media workers bind 127.0.0.1 only"), "\(server.output)")
    }
}
}

/// Binds an IPv6 loopback socket once, to see whether the machine can.
enum UDPProbe {
    static func bindIPv6Loopback() throws -> Bool {
        let fd = socket(AF_INET6, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        } == 0
    }
}
