import Node
import Packets
import Rooms
import SFU
import Testing
import VroomTestPeer
import VroomTesting
import WebRTC

@testable import MediaIO

/// A room spread over two workers (issue 16): the room lives on its home
/// worker until it holds `spreadRoomAfter` subscribers; the next subscriber
/// goes to the other worker, which gets the publisher's packets from the
/// home through a `RelayRing` and forwards them itself.
extension MediaPlaneScenarios {
@Suite struct MediaPlaneSpreadTests {
    @Test func aSubscriberOnTheOtherWorkerGetsTheRoomThroughTheRelay() async throws {
        let session = try PlaneSession(seed: 91, workers: 2, spreadRoomAfter: 1)
        try await session.publish()
        try await session.subscribe()
        try await session.expectForwarding(rounds: 5)
        // The keyframe request B's connection made is older than the 500 ms throttle.
        await TestPeer.pump([session.publisher, session.subscriber], for: .milliseconds(600))
        let plisBefore = session.publisher.pictureLossIndications

        // C is the room's second subscriber: the home holds one already.
        var generator = SeededGenerator(seed: 191)
        let c = try TestPeer(ice: .random(using: &generator))
        let cSID = ParticipantSID.random(using: &generator)
        let offer = try await session.subscribe(c, as: cSID)
        let homePort = try ServerTransportSDP(session.subscriberOffer).candidate.port
        let otherPort = try ServerTransportSDP(offer).candidate.port
        #expect(Set(session.plane.ports) == [homePort, otherPort], "C's connection is on the other worker")
        let cVideo = try #require(try ServerTransportSDP(offer).media.first { $0.mid == "1" }?.ssrcs.first)
        let cAudio = try #require(try ServerTransportSDP(offer).media.first { $0.mid == "0" }?.ssrcs.first)

        // C coming up wants a keyframe: the other worker's router asks the
        // home's, which sends the publisher the PLI.
        let asked = await TestPeer.pump([session.publisher, session.subscriber, c]) {
            session.publisher.pictureLossIndications > plisBefore
        }
        #expect(asked, "no keyframe request reached the publisher from the other worker")

        let before = await session.statistics()
        try session.sendRounds(30, keyframeFirst: true)
        let peers: [TestPeer] = [session.publisher, session.subscriber, c]
        func count(_ ssrc: SSRC) -> Int { c.rtp.count { $0.ssrc == ssrc } }
        let arrived = await TestPeer.pump(peers) {
            count(cVideo) >= 30 && count(cAudio) >= 30 && session.received(ssrc: session.videoSSRC).count >= 35
        }
        #expect(arrived, "C got \(c.rtp.count) packets through the relay")
        let video: [ReceivedRTP] = c.rtp.filter { $0.ssrc == cVideo }
        #expect(video.first?.isVP8Keyframe == true)
        #expect(isContiguous(video))
        #expect(isContiguous(c.rtp.filter { $0.ssrc == cAudio }))

        let after = await session.statistics()
        // One copy per packet to the other worker, none lost; counted once as received.
        #expect(after.relayed - before.relayed >= 60)
        #expect(after.relayReceived == after.relayed)
        #expect(after.relayDropped == 0 && after.relayUnknown == 0)
        #expect(after.router.packetsReceived.video - before.router.packetsReceived.video == 30)
        #expect(after.router.packetsForwarded.video - before.router.packetsForwarded.video >= 60, "B and C")
        #expect(after.rooms == 1)

        // C's NACK is answered by the other worker from its own history
        // (without RTX the repair is the same SRTP packet: a replay to C).
        let nacked = video[video.count - 2].sequenceNumber
        try c.sendRTCP(encodedRTCP(GenericNACK(senderSSRC: SSRC(78), mediaSSRC: cVideo, lostSequenceNumbers: [nacked])))
        let repaired = await TestPeer.pump(peers, timeout: .seconds(5)) { c.dropped.contains(TransportDropReason.replay) }
        #expect(repaired, "no retransmission for C's NACK")
        let repairedStatistics = await session.statistics()
        #expect(repairedStatistics.router.retransmissions > after.router.retransmissions)

        // The room's figures hold C's subscription, read on C's worker.
        let figures = await session.plane.roomStatistics(room: session.room)
        let cFigures = try #require(figures.participants[cSID])
        let subscribedTracks: [TrackSID] = cFigures.subscribed.map { $0.track }
        #expect(Set(subscribedTracks) == [session.audioTrack, session.videoTrack])
        #expect(cFigures.subscribed.allSatisfy { $0.downTrack.stats.packets > 0 })
        #expect(figures.participants[session.publisherSID]?.published.count == 2)

        // C leaves: the home stops handing the room over.
        session.plane.remove(participant: cSID)
        // Both workers ran the removal jobs (statistics asks each in turn).
        _ = await session.statistics()
        let gone = await session.statistics()
        try session.sendRounds(5, keyframeFirst: true)
        try await session.expectForwarding(rounds: 5)
        let last = await session.statistics()
        #expect(last.relayed == gone.relayed, "packets still relayed after C left")
        #expect(last.connections == 2)
        await session.stop()
    }

    /// The network quality of a participant whose subscriber connection is
    /// on the other worker: that worker samples its receiver reports and
    /// sends them to the home, whose monitor rates the participant.
    @Test func aSubscriberOnTheOtherWorkerIsRatedFromItsReports() async throws {
        let session = try PlaneSession(seed: 93, workers: 2, spreadRoomAfter: 1)
        try await session.publish()
        try await session.subscribe()
        var generator = SeededGenerator(seed: 193)
        let c = try TestPeer(ice: .random(using: &generator))
        let cSID = ParticipantSID.random(using: &generator)
        let offer = try await session.subscribe(c, as: cSID)
        let cAudio = try #require(try ServerTransportSDP(offer).media.first { $0.mid == "0" }?.ssrcs.first)
        let peers: [TestPeer] = [session.publisher, session.subscriber, c]
        func levels() -> [Int] {
            session.log.all.compactMap { event -> Int? in
                if case .networkQuality(session.room, cSID, let level, _) = event { level } else { nil }
            }
        }
        // 4 s of audio; C reports losing a third of it, twice a second.
        var highest: UInt16?
        for round in 0..<200 {
            let (header, payload) = session.source.audioPacket()
            try session.publisher.sendRTP(header, payload: payload)
            await TestPeer.pump(peers, for: .milliseconds(20))
            highest = c.rtp.last { $0.ssrc == cAudio }?.sequenceNumber ?? highest
            if round % 25 == 24, let highest {
                let report = ReceiverReport(ssrc: SSRC(79), reports: [
                    ReceptionReport(
                        ssrc: cAudio, fractionLost: 85, cumulativeLost: Int32(round / 3), extendedHighestSequence: UInt32(highest),
                        jitter: 48, lastSR: 0, delaySinceLastSR: 0),
                ])
                try c.sendRTCP(encodedRTCP(report))
            }
            if (levels().last ?? 5) <= 3 { break }
        }
        let rated = levels()
        #expect(!rated.isEmpty, "no network quality for C, whose subscriber connection is on the other worker")
        // Rated from the first sample on (nothing measured yet: 5), then from C's losses.
        #expect((rated.last ?? 5) <= 3, "a third lost downstream rated \(rated)")
        await session.stop()
    }

    /// Below the threshold every subscriber stays on the room's home: no relay.
    @Test func aRoomBelowTheThresholdStaysOnOneWorker() async throws {
        let session = try PlaneSession(seed: 92, workers: 2, spreadRoomAfter: 2)
        try await session.publish()
        try await session.subscribe()
        var generator = SeededGenerator(seed: 192)
        let c = try TestPeer(ice: .random(using: &generator))
        let offer = try await session.subscribe(c, as: ParticipantSID.random(using: &generator))
        #expect(try ServerTransportSDP(offer).candidate.port == ServerTransportSDP(session.subscriberOffer).candidate.port)
        try await session.expectForwarding(rounds: 5)
        let statistics = await session.statistics()
        #expect(statistics.relayed == 0)
        await session.stop()
    }
}
}
