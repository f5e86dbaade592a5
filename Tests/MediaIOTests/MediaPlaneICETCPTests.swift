import CVroomUDP
import Foundation
import Packets
import Rooms
import Testing
import VroomTestPeer
import VroomTesting
import WebRTC

@testable import MediaIO

/// Issue 15 item 1: ICE-TCP (RFC 6544 passive candidates, RFC 4571
/// framing) on a real media plane with `TestPeer`s on real sockets: media
/// over TCP only, bad framing, idle connections and a slow reader, each
/// next to a live session that must keep forwarding.
extension MediaPlaneScenarios {
@Suite struct MediaPlaneICETCPTests {
    /// Pumps the session's peers (and `others`) until `done` holds for the
    /// plane's counters, at most `seconds`.
    private func waitForStatistics(
        _ session: PlaneSession, others: [TestPeer] = [], seconds: Int = 5, _ done: (MediaStatistics) -> Bool
    ) async -> MediaStatistics {
        var latest = await session.statistics()
        let deadline = MediaClock.now().adding(milliseconds: UInt64(seconds) * 1000)
        while !done(latest), MediaClock.now() < deadline {
            await TestPeer.pump([session.publisher, session.subscriber] + others, for: .milliseconds(10))
            latest = await session.statistics()
        }
        return latest
    }

    /// A raw TCP connection to the worker's ICE-TCP port.
    private func connectRaw(_ session: PlaneSession) throws -> Int32 {
        let fd = vroom_tcp_connect(4, session.plane.ports[0], TestPeer.loopback, 0, 0)
        try #require(fd >= 0, "connect failed: errno \(-fd)")
        return fd
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) {
        let n = bytes.withUnsafeBufferPointer { vroom_tcp_write(fd, $0.baseAddress, UInt32($0.count)) }
        #expect(Int(n) == bytes.count)
    }

    /// Whether the server closed `fd` (a read sees end of stream) within 5 s.
    private func closedByServer(_ fd: Int32, session: PlaneSession) async -> Bool {
        var buffer = [UInt8](repeating: 0, count: 256)
        let deadline = MediaClock.now().adding(milliseconds: 5000)
        while MediaClock.now() < deadline {
            let n = buffer.withUnsafeMutableBufferPointer { vroom_tcp_read(fd, $0.baseAddress, UInt32($0.count)) }
            if n == 0 || (n < 0 && n != -EAGAIN) { return true }
            await TestPeer.pump([session.publisher, session.subscriber], for: .milliseconds(10))
        }
        return false
    }

    @Test func theServerOffersAPassiveTCPCandidateBelowItsUDPCandidate() async throws {
        let session = try await PlaneSession.connected(seed: 150)
        let lines = session.publishAnswer.split(separator: "\r\n").filter { $0.hasPrefix("a=candidate:") }
        let port = session.plane.ports[0]
        #expect(lines.count == 4)  // two m-lines, each one UDP and one TCP
        #expect(lines.first == "a=candidate:1 1 udp 2130706431 127.0.0.1 \(port) typ host")
        #expect(lines.dropFirst().first == "a=candidate:2 1 tcp 1520435199 127.0.0.1 \(port) typ host tcptype passive")
        await session.stop()
    }

    @Test func withICETCPOffTheServerOffersNoTCPCandidate() async throws {
        let session = try await PlaneSession.connected(seed: 151, iceTCP: ICETCPConfiguration(enabled: false))
        #expect(!session.publishAnswer.contains(" tcp "))
        await session.stop()
    }

    @Test func aPublisherAndASubscriberOverTCPOnlyExchangeMediaAndRTCP() async throws {
        let session = try await PlaneSession.connected(seed: 152, publisherOverTCP: true, subscriberOverTCP: true)
        let rounds = 40
        try await session.expectForwarding(rounds: rounds)
        let audio = session.received(ssrc: session.audioSSRC)
        let video = session.received(ssrc: session.videoSSRC)
        #expect(audio.count >= rounds && isContiguous(audio))
        #expect(video.count >= rounds && isContiguous(video))
        #expect(video.first?.isVP8Keyframe == true)
        // Feedback both ways over TCP: B's RTCP (sender reports) from the
        // server, and A's keyframe requests or reports.
        await TestPeer.pump([session.publisher, session.subscriber], timeout: .seconds(5)) {
            session.subscriber.rtcpPackets > 0 && session.publisher.rtcpPackets > 0
        }
        #expect(session.subscriber.rtcpPackets > 0)
        #expect(session.publisher.rtcpPackets > 0)
        // Nothing took UDP: the peers' UDP sockets never saw a datagram.
        #expect(session.publisher.drainSocket() == 0)
        #expect(session.subscriber.drainSocket() == 0)
        #expect(session.publisher.dropped.isEmpty && session.subscriber.dropped.isEmpty)
        let stats = await session.statistics()
        #expect(stats.tcp.accepted == 2)
        #expect(stats.tcp.open == 2 && stats.tcp.unauthenticated == 0)
        #expect(stats.tcp.framesReceived >= UInt64(2 * rounds))
        #expect(stats.tcp.framesSent >= UInt64(2 * rounds))
        #expect(stats.tcp.framesDroppedSlowReader == 0)
        #expect(stats.datagramsSent == 0)
        #expect(stats.prometheusText.contains("vroom_tcp_frames_sent_total \(stats.tcp.framesSent)"))
        print("ICE-TCP only: \(stats.tcp.framesReceived) frames in, \(stats.tcp.framesSent) frames out, \(stats.datagramsSent) UDP datagrams out")
        await session.stop()
    }

    /// Behind one NAT, one client's TCP connection may come from the very
    /// address and port of another client's UDP socket. Each keeps its own
    /// media: demux, answers and egress follow the path, not the address.
    @Test func aTCPPeerFromTheAddressOfAUDPPeerIsAnotherPeer() async throws {
        let (session, c) = try await sessionWithATCPSubscriberOnThePublishersPort()
        let peers = [session.publisher, session.subscriber, c]
        let rounds = 30
        let before = (b: session.subscriber.rtp.count, c: c.rtp.count, rtcp: session.publisher.rtcpPackets)
        try session.sendRounds(rounds, keyframeFirst: true)
        await TestPeer.pump(peers, timeout: .seconds(5)) {
            session.subscriber.rtp.count >= before.b + 2 * rounds && c.rtp.count >= before.c + 2 * rounds
        }
        // A's media reaches B over UDP and C over TCP.
        #expect(session.subscriber.rtp.count >= before.b + 2 * rounds)
        #expect(c.rtp.count >= before.c + 2 * rounds)
        // What the server sends A (RTCP) reaches A, over UDP.
        await TestPeer.pump(peers, timeout: .seconds(5)) { session.publisher.rtcpPackets > before.rtcp }
        #expect(session.publisher.rtcpPackets > before.rtcp)
        // Nobody got the other's packets: those would fail SRTP.
        #expect(session.publisher.dropped.isEmpty && session.subscriber.dropped.isEmpty && c.dropped.isEmpty)
        #expect(c.drainSocket() == 0)
        let stats = await session.statistics()
        #expect(stats.tcp.open == 1 && stats.tcp.unauthenticated == 0)
        #expect(stats.unknownTuple == 0)
        #expect(stats.transport[dropped: .srtpAuth] == 0 && stats.transport[dropped: .unvalidatedAddress] == 0)
        // C's connection closes: the worker forgets its stream's path.
        let worker = session.mediaPlane.workers[0]
        #expect(await worker.perform { $0.table.byStream.count } == 1)
        c.closeStream()
        _ = await waitForStatistics(session) { $0.tcp.open == 0 }
        #expect(await worker.perform { $0.table.byStream.count } == 0)
        await session.stop()
    }

    /// A connected session and subscriber C over ICE-TCP, C's connection
    /// bound to the port of publisher A's UDP socket. A TCP socket elsewhere
    /// on the machine may hold that port (EADDRINUSE): then again, with
    /// other ports, up to 5 times.
    private func sessionWithATCPSubscriberOnThePublishersPort() async throws -> (PlaneSession, TestPeer) {
        for attempt in 0..<UInt64(5) {
            let session = try await PlaneSession.connected(seed: 157 + 2 * attempt)
            var generator = SeededGenerator(seed: 158 + 2 * attempt)
            let c = try TestPeer(ice: .random(using: &generator), overTCP: true, tcpLocalPort: session.publisher.address.port)
            do {
                try await session.subscribe(c, as: .random(using: &generator))
                return (session, c)
            } catch TestPeerError.noTCPPath(EADDRINUSE) where attempt < 4 {
                await session.stop()
            }
        }
        throw TestPeerError.noTCPPath(EADDRINUSE)
    }

    @Test func aGarbageFrameClosesThatConnectionOnlyAndIsCounted() async throws {
        let session = try await PlaneSession.connected(seed: 153)
        let before = await session.statistics()
        // A well-framed packet whose first byte no demux takes (RFC 7983: 255).
        let garbage = try connectRaw(session)
        defer { _ = Glibc.close(garbage) }
        write(garbage, [0, 4, 0xFF, 1, 2, 3])
        // A DTLS record before any STUN check: not allowed unauthenticated.
        let early = try connectRaw(session)
        defer { _ = Glibc.close(early) }
        write(early, [0, 13, 22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(await closedByServer(garbage, session: session))
        #expect(await closedByServer(early, session: session))
        let after = await waitForStatistics(session) { $0.tcp.closedGarbage >= before.tcp.closedGarbage + 2 }
        #expect(after.tcp.closedGarbage - before.tcp.closedGarbage == 2)
        #expect(after.tcp.open == 0)
        try await session.expectForwarding()
        await session.stop()
    }

    @Test func anOversizedOrEmptyFrameClosesThatConnectionAndIsCounted() async throws {
        let session = try await PlaneSession.connected(seed: 154, subscriberOverTCP: true)
        let before = await session.statistics()
        let oversized = try connectRaw(session)
        defer { _ = Glibc.close(oversized) }
        write(oversized, [0xFF, 0xFF] + [UInt8](repeating: 0, count: 64))
        let empty = try connectRaw(session)
        defer { _ = Glibc.close(empty) }
        write(empty, [0, 0, 0, 1, 0])
        #expect(await closedByServer(oversized, session: session))
        #expect(await closedByServer(empty, session: session))
        let after = await waitForStatistics(session) { $0.tcp.closedBadLength >= before.tcp.closedBadLength + 2 }
        #expect(after.tcp.closedBadLength - before.tcp.closedBadLength == 2)
        // B's own TCP path is untouched.
        #expect(after.tcp.open == 1)
        try await session.expectForwarding()
        await session.stop()
    }

    @Test func aThousandIdleConnectionsAreBoundedTimedOutAndCountedWhileASessionForwards() async throws {
        let limit = 256
        let session = try await PlaneSession.connected(
            seed: 155, subscriberOverTCP: true,
            iceTCP: ICETCPConfiguration(handshakeTimeoutSeconds: 1, maximumUnauthenticated: limit))
        var idle: [Int32] = []
        defer { for fd in idle { _ = Glibc.close(fd) } }
        for _ in 0..<1000 {
            idle.append(try connectRaw(session))
            if idle.count % 100 == 0 { try await session.expectForwarding(rounds: 1) }
        }
        let bounded = await waitForStatistics(session) { $0.tcp.accepted >= 1001 }
        #expect(bounded.tcp.accepted == 1001)  // B's stream and the 1000
        #expect(bounded.tcp.unauthenticated <= limit)
        #expect(bounded.tcp.closedUnauthenticatedLimit + bounded.tcp.closedHandshakeTimeout >= UInt64(1000 - limit))
        try await session.expectForwarding()
        // After the handshake timeout (1 s, swept once a second) none is left.
        let expired = await waitForStatistics(session, seconds: 6) { $0.tcp.unauthenticated == 0 }
        #expect(expired.tcp.unauthenticated == 0)
        #expect(expired.tcp.open == 1)
        #expect(expired.tcp.closedHandshakeTimeout > 0)
        #expect(expired.tcp.closedUnauthenticatedLimit + expired.tcp.closedHandshakeTimeout == 1000)
        let text = expired.prometheusText
        #expect(text.contains("vroom_tcp_connections_closed_total{reason=\"handshake_timeout\"} \(expired.tcp.closedHandshakeTimeout)"))
        try await session.expectForwarding()
        await session.stop()
    }

    @Test func aSlowTCPReaderLosesWholeFramesOnlyAndNeverStallsTheOthers() async throws {
        let buffer = 16 << 10
        let session = try await PlaneSession.connected(
            seed: 156, iceTCP: ICETCPConfiguration(writeBufferBytes: buffer, socketSendBufferBytes: 4096))
        var generator = SeededGenerator(seed: 157)
        let slow = try TestPeer(ice: .random(using: &generator), overTCP: true, tcpReceiveBuffer: 4096)
        let slowSID = ParticipantSID.random(using: &generator)
        let offer = try await session.subscribe(slow, as: slowSID)
        let slowAudio = try #require(try ServerTransportSDP(offer).media(mid: "0")?.ssrcs.first)
        slow.readingPaused = true
        let rounds = 1500
        let audioBefore = session.received(ssrc: session.audioSSRC).count
        for chunk in 0..<(rounds / 50) {
            try session.sendRounds(50, keyframeFirst: chunk == 0)
            await TestPeer.pump([session.publisher, session.subscriber, slow], for: .milliseconds(5))
        }
        let arrived = await TestPeer.pump([session.publisher, session.subscriber, slow]) {
            session.received(ssrc: session.audioSSRC).count >= audioBefore + rounds
        }
        #expect(arrived, "B (UDP) missed packets while C (TCP) did not read")
        let stalled = await session.statistics()
        #expect(stalled.tcp.framesDroppedSlowReader > 0)
        #expect(stalled.tcp.bufferedBytes <= buffer)
        #expect(stalled.prometheusText.contains(
            "vroom_packets_dropped_total{reason=\"tcp_slow_reader\"} \(stalled.tcp.framesDroppedSlowReader)"))
        print("slow reader: \(stalled.tcp.framesDroppedSlowReader) frames dropped, \(stalled.tcp.bufferedBytes) bytes buffered, \(stalled.tcp.framesSent) frames queued")
        // C reads again: the stream is still whole frames (none cut), so
        // its transport decrypts what comes, old and new.
        slow.readingPaused = false
        var backlog = -1
        while backlog != slow.rtp.count {  // drain what waited, until 200 ms bring nothing
            backlog = slow.rtp.count
            await TestPeer.pump([session.publisher, session.subscriber, slow], for: .milliseconds(200))
        }
        #expect(backlog > 20)
        slow.clearReceived()
        try session.sendRounds(5, keyframeFirst: true)
        await TestPeer.pump([session.publisher, session.subscriber, slow], timeout: .seconds(5)) {
            slow.rtp.filter { $0.ssrc == slowAudio }.count >= 5
        }
        #expect(slow.rtp.filter { $0.ssrc == slowAudio }.count >= 5, "C's stream is no longer whole frames")
        #expect(!slow.streamClosed)
        #expect(!slow.dropped.contains(.malformed))
        #expect(!slow.dropped.contains(.srtpAuth))
        try await session.expectForwarding()
        await session.stop()
    }
}
}
