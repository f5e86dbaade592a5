import Packets
import Node
import Rooms
import Testing
import VroomTestPeer
import WebRTC

@testable import MediaIO

/// A real MediaPlane on loopback UDP, two `TestPeer`s doing ICE, DTLS and
/// SRTP against it: what B receives of what A publishes.
extension MediaPlaneScenarios {
@Suite struct MediaPlaneForwardingTests {
    @Test func subscriberReceivesPublisherMediaWithItsOwnSSRCsAndPayloadTypes() async throws {
        let session = try await PlaneSession.connected(seed: 1)
        let before = await session.statistics()
        #expect(before.connections == 2)
        #expect(before.rooms == 1)

        // Delta frames first: a subscriber's video must start at a keyframe.
        var source = session.source
        for _ in 0..<3 {
            let (header, payload) = source.videoPacket(keyframe: false)
            try session.publisher.sendRTP(header, payload: payload)
        }
        session.source = source
        await TestPeer.pump([session.publisher, session.subscriber], for: .milliseconds(200))
        #expect(session.received(ssrc: session.videoSSRC).isEmpty)

        try session.sendRounds(20, keyframeFirst: true)
        let arrived = await TestPeer.pump([session.publisher, session.subscriber]) {
            session.received(ssrc: session.audioSSRC).count >= 20 && session.received(ssrc: session.videoSSRC).count >= 20
        }
        #expect(arrived)
        let audio = session.received(ssrc: session.audioSSRC)
        let video = session.received(ssrc: session.videoSSRC)
        // Nothing on A's SSRCs: the server rewrote them to the offer's.
        #expect(session.subscriber.rtp.allSatisfy { $0.ssrc == session.audioSSRC || $0.ssrc == session.videoSSRC })
        #expect(session.audioPayloadType == SubscriberOffer.opusPayloadType)
        #expect(session.videoPayloadType == SubscriberOffer.vp8PayloadType)
        #expect(audio.allSatisfy { $0.payloadType == session.audioPayloadType })
        #expect(video.allSatisfy { $0.payloadType == session.videoPayloadType })
        #expect(isContiguous(audio))
        #expect(isContiguous(video))
        #expect(video.first?.isVP8Keyframe == true)
        #expect(video.count == 20)
        // The Opus payload passes untouched.
        #expect(audio.first.map { Array($0.payload.prefix(1)) } == [0x78])

        let after = await session.statistics()
        #expect(after.router.packetsReceived.audio - before.router.packetsReceived.audio >= 20)
        #expect(after.router.packetsReceived.video - before.router.packetsReceived.video >= 23)
        #expect(after.router.packetsForwarded.audio - before.router.packetsForwarded.audio >= 20)
        #expect(after.router.packetsForwarded.video - before.router.packetsForwarded.video >= 20)
        #expect(after.router.dropped(.waitingForKeyframe) - before.router.dropped(.waitingForKeyframe) >= 3)
        #expect(after.transport.rtpReceived - before.transport.rtpReceived >= 43)
        #expect(after.transport.rtpProtected - before.transport.rtpProtected >= 40)
        #expect(after.router.bytesForwarded.video > before.router.bytesForwarded.video)
        #expect(after.datagramsReceived > before.datagramsReceived)
        #expect(after.datagramsSent > before.datagramsSent)
        // The subscriber coming up asked A for a keyframe.
        #expect(after.router.pliSent >= 1)
        #expect(session.publisher.pictureLossIndications >= 1)
        // Both connections reported connected.
        let events = session.log.all
        #expect(events.contains(.connected(participant: session.publisherSID, connection: .publisher)))
        #expect(events.contains(.connected(participant: session.subscriberSID, connection: .subscriber)))
        await session.stop()
    }

    @Test func disablingStopsVideoAndEnablingResumesAtAKeyframeWithContiguousNumbers() async throws {
        let session = try await PlaneSession.connected(seed: 2)
        try await session.expectForwarding(rounds: 5)
        let videoBefore = session.received(ssrc: session.videoSSRC)

        session.plane.handle([
            .trackForwarding(room: session.room, publisher: session.publisherSID, track: session.videoTrack, forwarded: false)
        ])
        // `statistics` runs on the worker after the queued command.
        let disabledAt = await session.statistics()
        try session.sendRounds(10, keyframeFirst: true)
        let audioArrived = await TestPeer.pump([session.publisher, session.subscriber]) {
            session.received(ssrc: session.audioSSRC).count >= 15
        }
        #expect(audioArrived, "audio stopped with video")
        await TestPeer.pump([session.publisher, session.subscriber], for: .milliseconds(100))
        #expect(session.received(ssrc: session.videoSSRC).count == videoBefore.count, "video forwarded while disabled")
        let whileDisabled = await session.statistics()
        #expect(whileDisabled.router.dropped(.disabled) - disabledAt.router.dropped(.disabled) >= 10)

        let plisBefore = session.publisher.pictureLossIndications
        session.plane.handle([
            .trackForwarding(room: session.room, publisher: session.publisherSID, track: session.videoTrack, forwarded: true)
        ])
        // Enabling asks A for a keyframe.
        let asked = await TestPeer.pump([session.publisher, session.subscriber]) {
            session.publisher.pictureLossIndications > plisBefore
        }
        #expect(asked, "no PLI after enabling")
        // Delta frames before the keyframe are held back.
        try session.sendRounds(3, keyframeFirst: false)
        await TestPeer.pump([session.publisher, session.subscriber], for: .milliseconds(100))
        #expect(session.received(ssrc: session.videoSSRC).count == videoBefore.count)
        try session.sendRounds(5, keyframeFirst: true)
        let resumed = await TestPeer.pump([session.publisher, session.subscriber]) {
            session.received(ssrc: session.videoSSRC).count >= videoBefore.count + 5
        }
        #expect(resumed)
        let video = session.received(ssrc: session.videoSSRC)
        let firstAfter = try #require(video.dropFirst(videoBefore.count).first)
        #expect(firstAfter.isVP8Keyframe)
        // PROTOCOL.md 5: contiguous across the disabled period.
        #expect(isContiguous(video))
        #expect(isContiguous(session.received(ssrc: session.audioSSRC)))
        // Timestamps keep going forward across the gap.
        #expect(firstAfter.timestamp &- video[videoBefore.count - 1].timestamp < 1 << 31)
        let after = await session.statistics()
        #expect(after.router.pliSent > whileDisabled.router.pliSent)
        await session.stop()
    }
}
}
