import Packets
import Node
import Rooms
import SFU
import Testing
import VroomTestPeer
import WebRTC

@testable import MediaIO

/// `MediaPlane.roomStatistics` (what `/Stats` shows) against what two real
/// `TestPeer`s sent and received over loopback UDP, DTLS and SRTP.
extension MediaPlaneScenarios {
@Suite struct RoomStatisticsTests {
    /// The RTP length before SRTP of a packet `TestPeer.sendRTP` sends.
    static func plainLength(_ header: RTPHeader, _ payload: [UInt8]) throws -> Int {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)
        defer { scratch.deallocate() }
        return try payload.withUnsafeBytes { try RTPHeader.writePacket(header, payload: $0, to: scratch) }
    }

    @Test func countsAgreeWithWhatThePeersSentAndReceived() async throws {
        let session = try await PlaneSession.connected(seed: 61)
        let empty = await session.plane.roomStatistics(room: session.room)
        let publisherBefore = try #require(empty.participants[session.publisherSID])
        let publishedTracks: Set<TrackSID> = Set(publisherBefore.published.map(\.track))
        #expect(publishedTracks == [session.audioTrack, session.videoTrack])
        #expect(publisherBefore.published.allSatisfy { $0.receiver.stats.packets == 0 })
        let subscriberBefore = try #require(empty.participants[session.subscriberSID])
        #expect(subscriberBefore.subscribed.count == 2)
        #expect(subscriberBefore.subscribed.allSatisfy { $0.publisher == session.publisherSID && !$0.downTrack.hasReport })
        var generator = SystemRandomNumberGenerator()
        #expect(await session.plane.roomStatistics(room: RoomSID.random(using: &generator)).participants.isEmpty)

        // 30 rounds of audio + video, audio with a hole of 2 numbers after
        // round 10 (never sent: the publisher's link "lost" them).
        var audioBytes = 0
        var videoBytes = 0
        var audioSent = 0
        for round in 0..<30 {
            if round == 10 { session.source.audioSequence &+= 2 }
            let (audioHeader, audioPayload) = session.source.audioPacket()
            try session.publisher.sendRTP(audioHeader, payload: audioPayload)
            audioBytes += try Self.plainLength(audioHeader, audioPayload)
            audioSent += 1
            let (videoHeader, videoPayload) = session.source.videoPacket(keyframe: round == 0)
            try session.publisher.sendRTP(videoHeader, payload: videoPayload)
            videoBytes += try Self.plainLength(videoHeader, videoPayload)
            // 20 ms apart: a real cadence, so the rate window sees a stream.
            await TestPeer.pump([session.publisher, session.subscriber], for: .milliseconds(20))
        }
        let arrived = await TestPeer.pump([session.publisher, session.subscriber]) {
            session.received(ssrc: session.audioSSRC).count >= audioSent
                && session.received(ssrc: session.videoSSRC).count >= 30
                && session.subscriber.senderReports[session.audioSSRC] != nil
        }
        try #require(arrived, "media or a sender report did not arrive")

        // The subscriber reports on the audio it got: 25% lost in the
        // interval, 3 lost in all, jitter 480 (10 ms at 48 kHz), echoing the
        // server's last SR so the server can take the RTT.
        let sr = try #require(session.subscriber.senderReports[session.audioSSRC])
        let held = MediaClock.now().nanoseconds(since: sr.arrival)
        let highest = try #require(session.received(ssrc: session.audioSSRC).last?.sequenceNumber)
        let report = ReceiverReport(ssrc: SSRC(77), reports: [
            ReceptionReport(
                ssrc: session.audioSSRC, fractionLost: 64, cumulativeLost: 3, extendedHighestSequence: UInt32(highest),
                jitter: 480, lastSR: sr.ntpMiddle, delaySinceLastSR: UInt32((held << 16) / 1_000_000_000)),
        ])
        try session.subscriber.sendRTCP(encodedRTCP(report))
        // A NACK for the video packet before last, and a PLI.
        let video = session.received(ssrc: session.videoSSRC)
        let nacked = video[video.count - 2].sequenceNumber
        try session.subscriber.sendRTCP(encodedRTCP(
            GenericNACK(senderSSRC: SSRC(77), mediaSSRC: session.videoSSRC, lostSequenceNumbers: [nacked])))
        try session.subscriber.sendRTCP(encodedRTCP(PictureLossIndication(senderSSRC: SSRC(77), mediaSSRC: session.videoSSRC)))
        // Without RTX the repair is the same SRTP packet again: the
        // subscriber's SRTP drops it as a replay, which proves it arrived.
        let repaired = await TestPeer.pump([session.publisher, session.subscriber], timeout: .seconds(5)) {
            session.subscriber.dropped.contains(.replay)
        }
        #expect(repaired, "no retransmission for the NACK")
        // Audio goes on for 1.1 s: the PLI reaches the publisher (500 ms
        // throttle), a report tick passes, and the rate window sees a stream.
        for _ in 0..<55 {
            let (audioHeader, audioPayload) = session.source.audioPacket()
            try session.publisher.sendRTP(audioHeader, payload: audioPayload)
            audioBytes += try Self.plainLength(audioHeader, audioPayload)
            audioSent += 1
            await TestPeer.pump([session.publisher, session.subscriber], for: .milliseconds(20))
        }
        await TestPeer.pump([session.publisher, session.subscriber], timeout: .seconds(5)) {
            session.received(ssrc: session.audioSSRC).count >= audioSent
        }

        let stats = await session.plane.roomStatistics(room: session.room)
        let publisher = try #require(stats.participants[session.publisherSID])
        let audio = try #require(publisher.published.first { $0.track == session.audioTrack }?.receiver)
        let videoIn = try #require(publisher.published.first { $0.track == session.videoTrack }?.receiver)
        #expect(audio.kind == .audio)
        #expect(audio.ssrc == session.source.audioSSRC)
        #expect(audio.stats.packets == UInt64(audioSent))
        #expect(audio.stats.bytes == UInt64(audioBytes))
        #expect(audio.stats.lost == 2)
        #expect(audio.isForwarding)
        #expect(videoIn.stats.packets == 30)
        #expect(videoIn.stats.bytes == UInt64(videoBytes))
        #expect(videoIn.stats.lost == 0)
        #expect(videoIn.stats.keyframes == 1)
        // PLIs the server sent are the ones the publisher received.
        #expect(videoIn.stats.plisSent >= 1)
        #expect(videoIn.stats.plisSent == UInt64(session.publisher.pictureLossIndications))
        // Audio flowed through the last second: a rate exists, and it is at
        // most every byte sent in the shortest window.
        let audioRate = try #require(audio.rate)
        #expect(audioRate.bitsPerSecond > 0)
        #expect(audioRate.bitsPerSecond <= Double(audioBytes * 8) / 0.2)

        let subscriber = try #require(stats.participants[session.subscriberSID])
        let audioOut = try #require(subscriber.subscribed.first { $0.track == session.audioTrack })
        let videoOut = try #require(subscriber.subscribed.first { $0.track == session.videoTrack })
        #expect(audioOut.publisher == session.publisherSID)
        #expect(audioOut.downTrack.ssrc == session.audioSSRC)
        #expect(audioOut.downTrack.stats.packets == UInt64(session.received(ssrc: session.audioSSRC).count))
        #expect(audioOut.downTrack.hasReport)
        #expect(audioOut.downTrack.stats.lost == 3)
        #expect(audioOut.downTrack.stats.fractionLost == 64)
        #expect(abs(audioOut.downTrack.stats.jitterSeconds - 0.010) < 1e-9)
        let rtt = try #require(audioOut.downTrack.stats.roundTripTime)
        #expect(rtt >= 0 && rtt < 0.5)
        #expect(subscriber.roundTripTime == rtt)
        // One retransmission, which the subscriber's SRTP refused as a replay.
        #expect(videoOut.downTrack.stats.nacks == 1)
        #expect(videoOut.downTrack.stats.retransmissions == 1)
        #expect(session.subscriber.dropped.filter { $0 == .replay }.count == 1)
        #expect(videoOut.downTrack.stats.packets == 30)
        #expect(UInt64(session.received(ssrc: session.videoSSRC).count) == videoOut.downTrack.stats.packets)
        #expect(videoOut.downTrack.stats.plisReceived == 1)
        #expect(!videoOut.downTrack.hasReport)
        // Network quality is sampled once a second, from the connection's
        // first sample on: on a loaded machine the subscriber's first
        // rating may come after the figures above, so wait for it (5 s).
        var rated = stats
        let deadline = ContinuousClock.now + .seconds(5)
        while rated.participants[session.subscriberSID]?.networkQuality?.level == nil, ContinuousClock.now < deadline {
            await TestPeer.pump([session.publisher, session.subscriber], for: .milliseconds(100))
            rated = await session.plane.roomStatistics(room: session.room)
        }
        #expect(rated.participants[session.publisherSID]?.networkQuality != nil)
        #expect(rated.participants[session.subscriberSID]?.networkQuality?.level.map { (0...5).contains($0) } == true)
        await session.stop()
    }

    @Test func aVideoGapIsNACKedAndCountedLostUntilRepaired() async throws {
        let session = try await PlaneSession.connected(seed: 62)
        try session.sendRounds(5, keyframeFirst: true)
        // Skip one video sequence number: the router NACKs it at once.
        session.source.videoSequence &+= 1
        try session.sendRounds(5, keyframeFirst: false)
        let asked = await TestPeer.pump([session.publisher, session.subscriber]) { session.publisher.nackPackets > 0 }
        #expect(asked)
        // The NACK leaves when the first packet after the gap arrives; the
        // rest of the round may still be on its way to the router (5 s).
        var stats = await session.plane.roomStatistics(room: session.room)
        func publishedVideo() -> PublishedTrackStatistics<TrackSID>? {
            stats.participants[session.publisherSID]?.published.first { $0.track == session.videoTrack }
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while (publishedVideo()?.receiver.stats.packets ?? 0) < 10, ContinuousClock.now < deadline {
            await TestPeer.pump([session.publisher, session.subscriber], for: .milliseconds(20))
            stats = await session.plane.roomStatistics(room: session.room)
        }
        let video = try #require(publishedVideo())
        #expect(video.receiver.stats.packets == 10)
        #expect(video.receiver.stats.lost == 1)
        #expect(video.receiver.stats.nacksSent >= 1)
        await session.stop()
    }
}
}
