import Packets
import Node
import SDP
import Testing
import VroomTestPeer
import VroomTesting
import WebRTC

@testable import MediaIO

/// Issue 4 item 6: bad input on the UDP port is dropped and counted, and
/// the A -> B session next to it keeps forwarding.
extension MediaPlaneScenarios {
@Suite struct MediaPlaneBadInputTests {
    /// Polls the plane's counters (pumping the peers) until `done`, at most 5 s.
    private func waitForStatistics(
        _ session: PlaneSession, _ done: (MediaStatistics) -> Bool
    ) async -> MediaStatistics {
        var latest = await session.statistics()
        let deadline = MediaClock.now().adding(milliseconds: 5000)
        while !done(latest), MediaClock.now() < deadline {
            await TestPeer.pump([session.publisher, session.subscriber], for: .milliseconds(10))
            latest = await session.statistics()
        }
        return latest
    }

    /// A STUN Binding request as an ICE agent would send it.
    private func bindingRequest(username: String, password: String, useCandidate: Bool = true) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 512)
        let length = try bytes.withUnsafeMutableBytes { buffer throws(PacketError) -> Int in
            var writer = try STUNMessageWriter(buffer: buffer, type: .bindingRequest, transactionID: .random())
            try writer.appendUsername(username)
            try writer.appendPriority(0x6E00_1EFF)
            try writer.appendICEControlling(0x1234_5678_9ABC_DEF0)
            if useCandidate { try writer.appendUseCandidate() }
            try writer.appendMessageIntegrity(password: password)
            try writer.appendFingerprint()
            return writer.finish()
        }
        return Array(bytes[0..<length])
    }

    /// A DTLS 1.2 handshake record header with a ClientHello-looking body.
    private let dtlsRecord: [UInt8] = [22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]

    /// Nothing waiting on `peer`'s socket (the server answered nothing).
    private func nothingReceived(on peer: TestPeer) -> Bool {
        peer.drainSocket() == 0
    }

    @Test func randomDatagramsFromAStrangerAreCountedAsUnknownTupleAndUnanswered() async throws {
        let session = try await PlaneSession.connected(seed: 10)
        let stranger = try TestPeer(ice: .random())
        let before = await session.statistics()
        var generator = SeededGenerator(seed: 42)
        let count = 200
        for _ in 0..<count {
            let length = Int.random(in: 1...1200, using: &generator)
            stranger.send(generator.bytes(length), to: session.serverAddress)
        }
        let after = await waitForStatistics(session) { $0.unknownTuple - before.unknownTuple >= UInt64(count) }
        #expect(after.unknownTuple - before.unknownTuple == UInt64(count))
        #expect(after.transport.dropped == before.transport.dropped)
        #expect(nothingReceived(on: stranger))
        try await session.expectForwarding()
        await session.stop()
    }

    @Test func stunWithAWrongIntegrityOrUnknownUsernameIsCountedAndMovesNothing() async throws {
        let session = try await PlaneSession.connected(seed: 11)
        let stranger = try TestPeer(ice: .random())
        // The server's credentials for B's connection, from its offer.
        let server = try ServerTransportSDP(session.subscriberOffer)
        let bUfrag = session.subscriber.ice.ufrag
        let before = await session.statistics()

        // Right username, wrong password, USE-CANDIDATE: if it counted, B's
        // media would go to the stranger.
        stranger.send(
            try bindingRequest(username: "\(server.ice.ufrag):\(bUfrag)", password: "not-the-password-at-all!"),
            to: session.serverAddress)
        var after = await waitForStatistics(session) {
            $0.transport.droppedSTUNIntegrity > before.transport.droppedSTUNIntegrity
        }
        #expect(after.transport.droppedSTUNIntegrity - before.transport.droppedSTUNIntegrity == 1)

        // The server's ufrag with a remote ufrag that is not B's: the right
        // password does not help.
        stranger.send(
            try bindingRequest(username: "\(server.ice.ufrag):intruder", password: server.ice.password),
            to: session.serverAddress)
        after = await waitForStatistics(session) {
            $0.transport.droppedSTUNUnknownUsername > before.transport.droppedSTUNUnknownUsername
        }
        #expect(after.transport.droppedSTUNUnknownUsername - before.transport.droppedSTUNUnknownUsername == 1)

        // A ufrag no connection has: no transport even sees it.
        stranger.send(try bindingRequest(username: "nobody00:intruder", password: "whatever-password-123456"), to: session.serverAddress)
        after = await waitForStatistics(session) { $0.unknownTuple > before.unknownTuple }
        #expect(after.unknownTuple - before.unknownTuple == 1)

        await TestPeer.pump([session.publisher, session.subscriber], for: .milliseconds(50))
        #expect(nothingReceived(on: stranger), "the server answered an unauthenticated check")
        try await session.expectForwarding()
        await session.stop()
    }

    @Test func dtlsFromAnUnknownOrUnvalidatedAddressIsCountedAndUnanswered() async throws {
        let session = try await PlaneSession.connected(seed: 12)
        let before = await session.statistics()

        // An address the server never heard from.
        let stranger = try TestPeer(ice: .random())
        stranger.send(dtlsRecord, to: session.serverAddress)
        var after = await waitForStatistics(session) { $0.unknownTuple > before.unknownTuple }
        #expect(after.unknownTuple - before.unknownTuple == 1)

        // An address that sent a check ICE refused (wrong password), then DTLS.
        let server = try ServerTransportSDP(session.publishAnswer)
        let prober = try TestPeer(ice: .random())
        prober.send(
            try bindingRequest(username: "\(server.ice.ufrag):\(session.publisher.ice.ufrag)", password: "wrong-password-0123456789"),
            to: session.serverAddress)
        after = await waitForStatistics(session) {
            $0.transport.droppedSTUNIntegrity > before.transport.droppedSTUNIntegrity
        }
        prober.send(dtlsRecord, to: session.serverAddress)
        after = await waitForStatistics(session) { $0.unknownTuple - before.unknownTuple >= 2 }
        // Unvalidated addresses never reach a transport: the demux table
        // only holds addresses an authenticated check came from.
        #expect(after.unknownTuple - before.unknownTuple == 2)
        #expect(after.transport.dtlsHandled == before.transport.dtlsHandled)
        await TestPeer.pump([session.publisher, session.subscriber], for: .milliseconds(50))
        #expect(nothingReceived(on: stranger))
        #expect(nothingReceived(on: prober))
        try await session.expectForwarding()
        await session.stop()
    }

    @Test func srtpThatFailsAuthenticationOrReplaysIsCountedFromTheValidatedAddress() async throws {
        let session = try await PlaneSession.connected(seed: 13)
        try await session.expectForwarding(rounds: 3)
        let before = await session.statistics()

        // A replay: a packet A already sent, again.
        let (header, payload) = session.source.audioPacket()
        let sent = try session.publisher.sendRTP(header, payload: payload)
        _ = await waitForStatistics(session) { $0.transport.rtpReceived > before.transport.rtpReceived }
        session.publisher.sendToServer(sent)
        session.publisher.sendToServer(sent)
        var after = await waitForStatistics(session) { $0.transport.droppedReplay - before.transport.droppedReplay >= 2 }
        #expect(after.transport.droppedReplay - before.transport.droppedReplay == 2)

        // Tampered copies of the next packet (a payload byte; the tag's
        // last byte), then the packet itself, which must still pass.
        let (nextHeader, nextPayload) = session.source.audioPacket()
        let next = try session.publisher.sendRTP(nextHeader, payload: nextPayload, send: false)
        var payloadFlipped = next
        payloadFlipped[20] ^= 0x40
        var tagFlipped = next
        tagFlipped[tagFlipped.count - 1] ^= 0x01
        session.publisher.sendToServer(payloadFlipped)
        session.publisher.sendToServer(tagFlipped)
        after = await waitForStatistics(session) { $0.transport.droppedSRTPAuth - before.transport.droppedSRTPAuth >= 2 }
        #expect(after.transport.droppedSRTPAuth - before.transport.droppedSRTPAuth == 2)
        session.publisher.sendToServer(next)
        let passed = await TestPeer.pump([session.publisher, session.subscriber]) {
            session.received(ssrc: session.audioSSRC).contains { $0.payload == nextPayload }
        }
        #expect(passed, "the genuine packet was refused after its tampered copies")
        // Garbage SRTP-looking bytes from A's validated address.
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<20 {
            let length = Int.random(in: 12...300, using: &generator)
            var bytes = generator.bytes(length)
            bytes[0] = 0x80
            bytes[1] = 111
            session.publisher.sendToServer(bytes)
        }
        after = await waitForStatistics(session) {
            ($0.transport.droppedSRTPAuth + $0.transport.droppedMalformed)
                - (before.transport.droppedSRTPAuth + before.transport.droppedMalformed) >= 22
        }
        #expect(
            (after.transport.droppedSRTPAuth + after.transport.droppedMalformed)
                - (before.transport.droppedSRTPAuth + before.transport.droppedMalformed) == 22)
        #expect(isContiguous(session.received(ssrc: session.audioSSRC)))
        try await session.expectForwarding()
        await session.stop()
    }

    @Test func rtcpWithLyingLengthsAndCountsInsideValidSRTCPIsCountedAsMalformed() async throws {
        let session = try await PlaneSession.connected(seed: 14)
        let before = await session.statistics()
        let ssrc: [UInt8] = [0x11, 0x22, 0x33, 0x44]
        let lying: [[UInt8]] = [
            // RR claiming 5 report blocks in a 8-byte packet.
            [0x85, 201, 0x00, 0x01] + ssrc,
            // SR whose length says 80 bytes; 28 are there.
            [0x80, 200, 0x00, 0x13] + ssrc + [UInt8](repeating: 0, count: 20),
            // A valid RR, then a packet whose length runs past the end.
            [0x80, 201, 0x00, 0x01] + ssrc + [0x81, 205, 0xFF, 0xFF] + ssrc + ssrc,
            // SR with 2 report blocks announced but only one present.
            [0x82, 200, 0x00, 0x0C] + ssrc + [UInt8](repeating: 0, count: 20) + [UInt8](repeating: 0, count: 24),
            // A NACK (RTPFB 1) with a length of 1 word: no room for its SSRCs.
            [0x81, 205, 0x00, 0x01] + ssrc,
            // A header with a length of 0 words (4 bytes) then junk.
            [0x80, 201, 0x00, 0x00, 0xDE, 0xAD, 0xBE, 0xEF],
        ]
        for packet in lying { try session.publisher.sendRTCP(packet) }
        let after = await waitForStatistics(session) {
            $0.transport.rtcpReceived - before.transport.rtcpReceived >= UInt64(lying.count)
        }
        // Each passed SRTCP (so it reached the router), and each was refused there.
        #expect(after.transport.rtcpReceived - before.transport.rtcpReceived == UInt64(lying.count))
        #expect(after.router.dropped(.malformed) - before.router.dropped(.malformed) >= UInt64(lying.count))

        // Random RTCP-looking bytes, all protected by A: no crash, no stall.
        var generator = SeededGenerator(seed: 99)
        for _ in 0..<50 {
            let words = Int.random(in: 2...60, using: &generator)
            var bytes = generator.bytes(4 * words)
            bytes[0] = 0x80 | (bytes[0] & 0x1F)
            bytes[1] = UInt8.random(in: 200...206, using: &generator)
            try session.publisher.sendRTCP(bytes)
        }
        let later = await waitForStatistics(session) {
            $0.transport.rtcpReceived - before.transport.rtcpReceived >= UInt64(lying.count + 50)
        }
        #expect(later.transport.rtcpReceived - before.transport.rtcpReceived == UInt64(lying.count + 50))
        #expect(later.router.dropped(.malformed) > after.router.dropped(.malformed))
        try await session.expectForwarding()
        await session.stop()
    }

    /// `tracks` kinds against the offer's m-lines (mid 0 audio, mid 1
    /// video): a kind that contradicts its m-line is 53403, one that is
    /// neither audio nor video 53300, before anything changes.
    @Test func trackKindsMustMatchTheirMLines() async throws {
        let session = try PlaneSession(seed: 16)
        let offer = session.publisher.publishOffer(audioSSRC: SSRC(1), videoSSRC: SSRC(2))
        func code(_ kinds: [String]) -> Int? {
            do {
                _ = try session.plane.answerPublish(
                    participant: session.publisherSID, room: session.room, offer: offer, trackMIDs: ["0", "1"],
                    trackKinds: kinds)
                return nil
            } catch {
                return error.code
            }
        }
        #expect(code(["audio", "video"]) == nil)
        #expect(code(["video", "video"]) == 53403)
        #expect(code(["audio", "audio"]) == 53403)
        #expect(code(["audio", "data"]) == 53300)
        await session.stop()
    }

    @Test func hostilePublishOffersAreRefusedWith53403() async throws {
        let session = try PlaneSession(seed: 15)
        let peer = session.publisher
        let honest = peer.publishOffer(audioSSRC: SSRC(1), videoSSRC: SSRC(2))

        func answer(_ text: String) throws -> MediaError? {
            _ = try SessionDescription(parsing: text)
            do {
                _ = try session.plane.answerPublish(
                    participant: session.publisherSID, room: session.room, offer: text, trackMIDs: ["0", "1"])
                return nil
            } catch {
                return error
            }
        }

        // Huge: 100 video m-lines.
        let videoStart = try #require(honest.range(of: "m=video"))
        let videoSection = String(honest[videoStart.lowerBound...])
        var huge = String(honest[..<videoStart.lowerBound])
        for index in 1...100 {
            huge += videoSection.replacingOccurrences(of: "a=mid:1\r", with: "a=mid:v\(index)\r")
        }
        #expect(try answer(huge)?.code == 53403)

        // Two m-lines with mid 0.
        let duplicate = honest.replacingOccurrences(of: "a=mid:1\r", with: "a=mid:0\r")
        #expect(try answer(duplicate)?.code == 53403)

        // Extmap ID 15 in the one-byte form (RFC 8285: reserved).
        let extmap15 = honest.replacingOccurrences(
            of: "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid", with: "a=extmap:15 urn:ietf:params:rtp-hdrext:sdes:mid")
        #expect(try answer(extmap15)?.code == 53403)

        // The honest offer is still answered, and nothing was created.
        #expect(try answer(honest) == nil)
        let statistics = await session.statistics()
        #expect(statistics.connections == 0)
        await session.stop()
    }
}
}
