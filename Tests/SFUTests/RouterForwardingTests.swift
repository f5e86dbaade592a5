import Packets
import Testing
import VroomTesting
import WebRTC
@testable import SFU

/// Scenarios on virtual time: one Chrome-like publisher, an aiortc-like
/// subscriber (alice) and a Chrome-like one (bob).
@Suite struct RouterForwardingTests {
    /// PLIs among what was sent to the publisher.
    func plis(_ sent: [SentPacket]) -> Int {
        let packets = (try? sent.rtcp(to: Room.publisher)) ?? []
        return packets.filter { if case .pli = $0 { true } else { false } }.count
    }

    @Test func rewritesSSRCPayloadTypeSequenceTimestampAndExtensionsPerSubscriber() throws {
        var room = try Room()
        room.tick()
        _ = room.sink.drain()
        room.frame(0, keyframe: true)
        room.frame(1)
        let sent = room.sink.drain()
        let alice = try sent.rtp(to: Room.alice)
        let bob = try sent.rtp(to: Room.bob)
        #expect(alice.map(\.ssrc) == [SSRC(0xA1), SSRC(0xA1)])
        #expect(alice.map(\.payloadType) == [97, 97])
        #expect(alice.map(\.sequenceNumber) == [100, 101])
        #expect(alice.map(\.timestamp) == [90_000, 93_000])
        #expect(alice.map(\.pictureID) == [200, 201])
        // Only what alice negotiated: mid (ID 1) with her mid value.
        #expect(alice[0].extensions == [1: Array("v0".utf8)])
        #expect(bob.map(\.ssrc) == [SSRC(0xB1), SSRC(0xB1)])
        #expect(bob.map(\.payloadType) == [96, 96])
        #expect(bob.map(\.sequenceNumber) == [60_000, 60_001])
        // Bob: his mid, his own transport-wide numbers, abs-send-time copied.
        #expect(bob[0].extensions == [4: Array("3".utf8), 3: [0, 1], 2: [1, 2, 3]])
        #expect(bob[1].extensions[3] == [0, 2])
        // The payload is the publisher's, byte for byte.
        let source = Publish.vp8(
            sequence: 1001, timestamp: 93_000, ssrc: Room.videoSSRC, pictureID: 201,
            extensions: [.init(id: 2, value: [1, 2, 3]), .init(id: 3, value: [0, 1])])
        let sourcePayload = try source.withUnsafeBytes { Array(try RTPPacketView(validating: $0).payload) }
        #expect(alice[1].payload == sourcePayload)
        #expect(bob[1].payload == sourcePayload)

        room.send(Publish.opus(sequence: 3000, timestamp: 960, ssrc: Room.audioSSRC))
        let audio = room.sink.drain()
        let aliceAudio = try #require(try audio.rtp(to: Room.alice).first)
        let bobAudio = try #require(try audio.rtp(to: Room.bob).first)
        #expect(aliceAudio.payloadType == 96 && aliceAudio.ssrc == SSRC(0xA3) && aliceAudio.sequenceNumber == 500)
        #expect(aliceAudio.extensions == [1: Array("a0".utf8)])
        #expect(bobAudio.payloadType == 111 && bobAudio.ssrc == SSRC(0xB3) && bobAudio.sequenceNumber == 7)
        #expect(bobAudio.extensions == [4: Array("4".utf8), 3: [0, 3]])
        #expect(room.router.counters.packetsForwarded == KindCounts(audio: 2, video: 4))
        #expect(room.router.downTrackStats(track: Room.video, subscriber: Room.alice)?.packets == 2)
    }

    @Test func videoStartsOnAKeyframeAndJoinAsksForOneThrottled() throws {
        var room = try Room()
        room.tick()
        let join = try room.sink.drain().rtcp(to: Room.publisher)
        #expect(join == [.pli(PictureLossIndication(senderSSRC: SSRC(1), mediaSSRC: Room.videoSSRC))])
        // Delta frames are held back; the next request waits 500 ms.
        for n in 0..<10 as Range<UInt16> { room.frame(n) }  // 330 ms
        var sent = room.sink.drain()
        #expect(try sent.rtp(to: Room.alice).isEmpty)
        #expect(try sent.rtcp(to: Room.publisher).isEmpty)
        #expect(room.router.counters.dropped(.waitingForKeyframe) == 20)
        for n in 10..<17 as Range<UInt16> { room.frame(n) }  // frame 16 at 528 ms
        sent = room.sink.drain()
        #expect(try sent.rtcp(to: Room.publisher).count == 1)
        room.frame(17, keyframe: true)
        room.frame(18)
        sent = room.sink.drain()
        #expect(try sent.rtp(to: Room.alice).map(\.sequenceNumber) == [100, 101])
        #expect(try sent.rtp(to: Room.alice).first?.pictureID == 217)
        #expect(room.router.counters.pliSent == 2)

        // A subscriber's PLI goes to the publisher, at most once per 500 ms;
        // the one held back leaves with the first tick 500 ms after the last.
        room.advance(ms: 600)
        let pli = PictureLossIndication(senderSSRC: SSRC(77), mediaSSRC: SSRC(0xB1))
        room.router.receiveControl(pli, from: Room.bob, now: room.now, into: &room.sink)
        room.advance(ms: 100)
        room.router.receiveControl(pli, from: Room.bob, now: room.now, into: &room.sink)
        #expect(plis(room.sink.drain()) == 1)
        room.advance(ms: 399)
        room.tick()
        #expect(plis(room.sink.drain()) == 0)
        room.advance(ms: 1)
        room.tick()
        #expect(plis(room.sink.drain()) == 1)
        #expect(room.router.downTrackStats(track: Room.video, subscriber: Room.bob)?.plisReceived == 2)
    }

    @Test func disableThenEnableKeepsNumberingContiguousAndAdvancesTimestamps() throws {
        var room = try Room()
        room.tick()
        room.frame(0, keyframe: true)
        for n in 1...4 as ClosedRange<UInt16> { room.frame(n) }
        try room.router.setForwarding(track: Room.video, enabled: false, now: room.now)
        for n in 5...30 as ClosedRange<UInt16> { room.frame(n) }
        #expect(room.router.counters.dropped(.disabled) == 26)
        _ = room.sink.drain()
        try room.router.setForwarding(track: Room.video, enabled: true, now: room.now)
        room.tick()
        let enable = try room.sink.drain().rtcp(to: Room.publisher)
        #expect(enable.contains(.pli(PictureLossIndication(senderSSRC: SSRC(1), mediaSSRC: Room.videoSSRC))))
        room.frame(31)  // not a keyframe: held back
        #expect(room.now == MediaTime.milliseconds(10_000 + 32 * 33))
        room.frame(32, keyframe: true)
        room.frame(33)
        let alice = try room.sink.drain().rtp(to: Room.alice)
        #expect(alice.map(\.sequenceNumber) == [105, 106])
        // Frame 4 went out at 10,132 ms with timestamp 102,000; frame 32 at
        // 11,056 ms: 924 ms later, times 90 kHz.
        #expect(alice[0].timestamp == 102_000 + 924 * 90)
        #expect(alice[1].timestamp == 102_000 + 924 * 90 + 3000)
        #expect(alice.map(\.pictureID) == [205, 206])
    }

    @Test func publisherRestartUnderANewSSRCKeepsNumberingContiguous() throws {
        var room = try Room(declareSSRCs: false)
        room.tick()
        let mid: [RTPHeader.Extension] = [.init(id: 4, value: Array("0".utf8))]
        func frame(_ seq: UInt16, _ ts: UInt32, _ ssrc: SSRC, key: Bool = false, withMID: Bool = true) -> [UInt8] {
            Publish.vp8(sequence: seq, timestamp: ts, ssrc: ssrc, pictureID: seq, keyframe: key,
                        extensions: withMID ? mid : [])
        }
        room.send(frame(1000, 90_000, SSRC(0x1111), key: true))
        room.advance(ms: 33)
        room.send(frame(1001, 93_000, SSRC(0x1111), withMID: false))  // MID only on first packets
        room.advance(ms: 33)
        #expect(room.router.receiverSSRCs(track: Room.video)?.ssrc == SSRC(0x1111))
        // An SSRC nothing names: dropped.
        room.send(frame(5, 1, SSRC(0x3333), withMID: false))
        #expect(room.router.counters.dropped(.unknownSSRC) == 1)
        // Restart: new SSRC, new numbering, learned from the MID extension.
        room.advance(ms: 1000)
        room.send(frame(40_000, 7_000_000, SSRC(0x2222), key: true))
        room.advance(ms: 33)
        room.send(frame(40_001, 7_003_000, SSRC(0x2222), withMID: false))
        let alice = try room.sink.drain().rtp(to: Room.alice)
        #expect(alice.map(\.sequenceNumber) == [100, 101, 102, 103])
        #expect(alice[2].timestamp == 93_000 + 1033 * 90)
        #expect(room.router.receiverStats(track: Room.video)?.sourceChanges == 1)
    }

    /// A renegotiation carries the track on a new m-line (a client that
    /// unpublished and republished it under the same name in one offer):
    /// the new mid's packets, under a new SSRC, reach the subscribers with
    /// contiguous numbering; the old mid names nothing any more. Seen as a
    /// frozen tile when the meeting page switched cameras that way.
    @Test func aTrackMovedToAnotherMidGoesOnForwarding() throws {
        var room = try Room(declareSSRCs: false)
        room.tick()
        func frame(_ seq: UInt16, _ ts: UInt32, _ ssrc: SSRC, mid: String, key: Bool = false) -> [UInt8] {
            Publish.vp8(sequence: seq, timestamp: ts, ssrc: ssrc, pictureID: seq, keyframe: key,
                        extensions: [.init(id: 4, value: Array(mid.utf8))])
        }
        room.send(frame(1000, 90_000, SSRC(0x1111), mid: "0", key: true))
        room.advance(ms: 33)
        try room.router.updateReceiverMID(track: Room.video, mid: "5")
        #expect(room.router.receiverStats(track: Room.video) != nil)
        room.send(frame(7, 1_000, SSRC(0x3333), mid: "0", key: true))  // the old m-line: nothing now
        room.send(frame(1001, 93_000, SSRC(0x1111), mid: "0"))  // nor the old transceiver's SSRC
        #expect(room.router.counters.dropped(.unknownSSRC) == 2)
        room.send(frame(40_000, 7_000_000, SSRC(0x2222), mid: "5", key: true))
        room.advance(ms: 33)
        room.send(frame(40_001, 7_003_000, SSRC(0x2222), mid: "5"))
        let alice = try room.sink.drain().rtp(to: Room.alice)
        #expect(alice.map(\.sequenceNumber) == [100, 101, 102])
        #expect(room.router.receiverSSRCs(track: Room.video)?.ssrc == SSRC(0x2222))
        #expect(room.router.receiverStats(track: Room.video)?.sourceChanges == 1)
        #expect(throws: RouterError.unknownTrack(TrackID(99))) { try room.router.updateReceiverMID(track: TrackID(99), mid: "1") }
    }

    @Test func paddingAndRTXProbesAreDroppedWithoutGapsAndRTXRepairsFill() throws {
        var room = try Room()
        room.tick()
        let s = Room.videoSSRC
        let f0 = Publish.vp8(sequence: 1000, timestamp: 0, ssrc: s, pictureID: 1, keyframe: true)
        let f1 = Publish.vp8(sequence: 1001, timestamp: 3000, ssrc: s, pictureID: 2)
        room.send(f0)
        room.send(f1)
        room.send(Publish.padding(sequence: 1002, timestamp: 3000, ssrc: s))
        room.send(Publish.padding(sequence: 1003, timestamp: 3000, ssrc: s))
        room.send(Publish.rtx(of: f1, sequence: 50, ssrc: Room.rtxSSRC))  // probe: a copy of a received packet
        room.send(Publish.padding(sequence: 51, timestamp: 3000, ssrc: Room.rtxSSRC, payloadType: 97))
        room.send(Publish.vp8(sequence: 1004, timestamp: 6000, ssrc: s, pictureID: 3))
        let f6 = Publish.vp8(sequence: 1005, timestamp: 9000, ssrc: s, pictureID: 4, fill: 0x55)
        room.send(Publish.vp8(sequence: 1006, timestamp: 12_000, ssrc: s, pictureID: 5))  // 1005 lost
        room.send(Publish.rtx(of: f6, sequence: 52, ssrc: Room.rtxSSRC))  // the repair
        let alice = try room.sink.drain().rtp(to: Room.alice)
        #expect(alice.map(\.sequenceNumber) == [100, 101, 102, 104, 103])
        #expect(alice.map(\.pictureID) == [1, 2, 3, 5, 4])
        #expect(alice[4].payload.last == 0x55)
        #expect(room.router.counters.dropped(.padding) == 2)
        #expect(room.router.counters.dropped(.rtxProbe) == 2)
    }

    /// A room whose subscribers were sent a keyframe and nine frames
    /// (Alice's numbers 100-109, Bob's from 60,000), the sink drained.
    static func roomWithTenFramesSent() throws -> Room {
        var room = try Room()
        room.tick()
        room.frame(0, keyframe: true)
        for n in 1..<10 as Range<UInt16> { room.frame(n) }
        _ = room.sink.drain()
        return room
    }

    @Test func nackIsAnsweredFromHistoryOnRTXOrThePrimarySSRC() throws {
        var room = try Self.roomWithTenFramesSent()
        room.advance(ms: 600)
        let nack = GenericNACK(senderSSRC: SSRC(5), mediaSSRC: SSRC(0xA1), lostSequenceNumbers: [102, 105])
        room.router.receiveControl(nack, from: Room.alice, now: room.now, into: &room.sink)
        let repairs = try room.sink.drain().rtp(to: Room.alice)
        #expect(repairs.map(\.ssrc) == [SSRC(0xA2), SSRC(0xA2)])
        #expect(repairs.map(\.payloadType) == [98, 98])
        #expect(repairs.map { Array($0.payload.prefix(2)) } == [[0, 102], [0, 105]])
        #expect(repairs[0].timestamp == 90_000 + 2 * 3000)
        // The original payload follows the OSN, picture ID included.
        let descriptor = try Array(repairs[1].payload.dropFirst(2)).withUnsafeBytes {
            try VP8PayloadDescriptor(validating: $0).pictureID
        }
        #expect(descriptor == 205)

        let bobNack = GenericNACK(senderSSRC: SSRC(6), mediaSSRC: SSRC(0xB1), lostSequenceNumbers: [60_003])
        room.router.receiveControl(bobNack, from: Room.bob, now: room.now, into: &room.sink)
        let bobRepair = try #require(try room.sink.drain().rtp(to: Room.bob).first)
        #expect(bobRepair.ssrc == SSRC(0xB1) && bobRepair.payloadType == 96 && bobRepair.sequenceNumber == 60_003)
        #expect(bobRepair.pictureID == 203)

        // A number never sent cannot be repaired: a keyframe is asked for.
        let miss = GenericNACK(senderSSRC: SSRC(6), mediaSSRC: SSRC(0xB1), lostSequenceNumbers: [50])
        room.router.receiveControl(miss, from: Room.bob, now: room.now, into: &room.sink)
        #expect(try room.sink.drain().rtcp(to: Room.publisher).count == 1)
        #expect(room.router.counters.retransmissions == 3)
        #expect(room.router.counters.nackReceived == 4)
        #expect(room.router.counters.nackMisses == 1)
        #expect(room.router.downTrackStats(track: Room.video, subscriber: Room.alice)?.retransmissions == 2)
    }

    /// A switched-off track's losses are not repaired: nothing of it is
    /// shown until it comes back at a keyframe, and on a congested link
    /// the copies would crowd out the tracks still on. Another
    /// subscriber's NACK for the same track is still answered.
    @Test func aSwitchedOffTrackIsNotRepaired() throws {
        var room = try Self.roomWithTenFramesSent()
        try room.router.setSwitchedOffBySubscriber(track: Room.video, subscriber: Room.alice, true, now: room.now)
        _ = room.sink.drain()
        room.advance(ms: 100)
        let nack = GenericNACK(senderSSRC: SSRC(5), mediaSSRC: SSRC(0xA1), lostSequenceNumbers: [102, 105])
        room.router.receiveControl(nack, from: Room.alice, now: room.now, into: &room.sink)
        #expect(try room.sink.drain().rtp(to: Room.alice).isEmpty)
        #expect(room.router.counters.nackReceived == 2)
        #expect(room.router.counters.retransmissions == 0)
        #expect(room.router.downTrackStats(track: Room.video, subscriber: Room.alice)?.nacks == 2)

        let bobNack = GenericNACK(senderSSRC: SSRC(6), mediaSSRC: SSRC(0xB1), lostSequenceNumbers: [60_003])
        room.router.receiveControl(bobNack, from: Room.bob, now: room.now, into: &room.sink)
        #expect(try room.sink.drain().rtp(to: Room.bob).count == 1)
        #expect(room.router.counters.retransmissions == 1)
    }

    /// A NACK repeated before the copy could have arrived (within the
    /// round trip: 100 ms before any report measured one) is not answered
    /// again; after it, it is.
    @Test func aPacketIsResentAtMostOncePerRoundTrip() throws {
        var room = try Self.roomWithTenFramesSent()
        let nack = GenericNACK(senderSSRC: SSRC(5), mediaSSRC: SSRC(0xA1), lostSequenceNumbers: [102, 105])
        room.router.receiveControl(nack, from: Room.alice, now: room.now, into: &room.sink)
        #expect(try room.sink.drain().rtp(to: Room.alice).count == 2)
        room.advance(ms: 60)
        let again = GenericNACK(senderSSRC: SSRC(5), mediaSSRC: SSRC(0xA1), lostSequenceNumbers: [102, 105, 106])
        room.router.receiveControl(again, from: Room.alice, now: room.now, into: &room.sink)
        #expect(try room.sink.drain().rtp(to: Room.alice).map { Array($0.payload.prefix(2)) } == [[0, 106]])
        room.advance(ms: 60)
        room.router.receiveControl(again, from: Room.alice, now: room.now, into: &room.sink)
        #expect(try room.sink.drain().rtp(to: Room.alice).map { Array($0.payload.prefix(2)) } == [[0, 102], [0, 105]])
        #expect(room.router.counters.nackReceived == 8)
        #expect(room.router.counters.retransmissions == 5)
    }

    @Test func audioPauseStopsAudioToOneSubscriberAndResumesContiguously() throws {
        var room = try Room()
        var seq: UInt16 = 3000
        var ts: UInt32 = 0
        func opus() -> [UInt8] {
            defer { seq &+= 1; ts &+= 960 }
            return Publish.opus(sequence: seq, timestamp: ts, ssrc: Room.audioSSRC)
        }
        for _ in 0..<3 {
            room.send(opus())
            room.advance(ms: 20)
        }
        try room.router.setAudioPaused(subscriber: Room.alice, paused: true)
        for _ in 0..<50 {
            room.send(opus())
            room.advance(ms: 20)
        }
        try room.router.setAudioPaused(subscriber: Room.alice, paused: false)
        room.send(opus())
        let sent = room.sink.drain()
        let alice = try sent.rtp(to: Room.alice)
        #expect(alice.map(\.sequenceNumber) == [500, 501, 502, 503])
        // Last before the pause: ts 1920 at 10,040 ms; resumed at 11,060 ms.
        #expect(alice[3].timestamp == 1920 + 1020 * 48)
        #expect(try sent.rtp(to: Room.bob).count == 54)
        #expect(room.router.counters.dropped(.paused) == 50)
    }

    @Test func fullEgressRingDropsAndCounts() throws {
        var room = try Room()
        room.sink.full = true
        room.send(Publish.opus(sequence: 1, timestamp: 0, ssrc: Room.audioSSRC))
        #expect(room.router.counters.dropped(.noSlot) == 2)
        #expect(room.sink.sent.isEmpty)
    }
}
