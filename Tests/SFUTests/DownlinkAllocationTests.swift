import Packets
import Testing

@testable import SFU

/// The router's downlink controller (issue 13): each subscriber connection's
/// estimate, shared by its `StreamAllocator`, caps the layer its DownTracks
/// forward or switches them off, and what it wants beyond the estimate is
/// probed for with paced padding. Layers here cost what Chrome's do, in
/// proportion: q 200, h 600, f 1,100 payload bytes a frame at 30 fps (about
/// 60, 170 and 290 kbit/s).
@Suite struct DownlinkAllocationTests {
    typealias S = SimulcastRoom
    static let carol = TransportID(12)
    static let payloadBytes = [200, 600, 1100]

    /// A room whose three layers flow for 2 s, so their rates are measured.
    static func flowingRoom() throws -> SimulcastRoom {
        var room = try SimulcastRoom()
        try room.router.addSubscriber(transport: carol, midExtensionID: 4, transportCCExtensionID: 3)
        try room.router.addDownTrack(
            track: S.video, subscriber: carol, ssrc: SSRC(0xC1), rtxSSRC: SSRC(0xC2), payloadType: 96,
            rtxPayloadType: 97, mid: "5", initialSequenceNumber: 7)
        for n in 0..<60 { sendFrame(&room, keyframe: n == 0) }
        _ = room.sink.drain()
        return room
    }

    /// One frame on each of `layers`, each of its layer's size, then a tick.
    static func sendFrame(_ room: inout SimulcastRoom, keyframe: Bool = false, layers: Range<Int> = 0..<3) {
        for layer in layers { sendPacket(&room, layer: layer, keyframe: keyframe, payloadBytes: payloadBytes[layer]) }
        room.now = room.now.adding(milliseconds: 33)
        room.tick()
    }

    /// `layer`'s next frame as one packet of `payloadBytes`, at `room.now`.
    static func sendPacket(_ room: inout SimulcastRoom, layer: Int, keyframe: Bool = false, payloadBytes: Int) {
        let n = room.frames[layer]
        let header = RTPHeader(
            marker: true, payloadType: 96, sequenceNumber: UInt16(1000 * (layer + 1) + n),
            timestamp: UInt32(1_000_000 * layer + 3000 * n), ssrc: S.ssrc(layer))
        let payload = SimulcastPayload.vp8(
            pictureID: UInt16(300 * layer + n), tl0PicIdx: UInt8(truncatingIfNeeded: 50 * layer + n),
            keyframe: keyframe, size: S.sizes[layer], fill: 0xA0 + UInt8(layer), payloadBytes: payloadBytes)
        room.send(Publish.write(header, payload))
        room.frames[layer] += 1
    }

    /// Frames for `seconds`, a keyframe on every layer each second (so a
    /// switch never waits long); the layers alice was sent, in order of
    /// the frames.
    static func run(_ room: inout SimulcastRoom, seconds: Int, to subscriber: TransportID) throws -> [Int] {
        var layers: [Int] = []
        for n in 0..<(seconds * 30) {
            sendFrame(&room, keyframe: n % 30 == 0)
            layers += try room.sink.drain().rtp(to: subscriber).compactMap { S.layer(of: $0) }
        }
        return layers
    }

    /// One frame, then `subscriber`'s first transport-cc feedback (on its
    /// last packet): from then on its downlink is estimated, allocated and
    /// paced. Returns that packet's transport-wide number.
    @discardableResult
    static func startFeedback(_ room: inout SimulcastRoom, from subscriber: TransportID, mediaSSRC: SSRC) throws -> UInt16 {
        sendFrame(&room)
        let last = try #require(try room.sink.drain().rtp(to: subscriber).last?.extensions[3]).transportSequence
        room.router.receiveControl(
            TransportCCFeedback(
                senderSSRC: SSRC(9), mediaSSRC: mediaSSRC, baseSequenceNumber: last, referenceTime: 10,
                feedbackPacketCount: 0, deltas: [4]),
            from: subscriber, now: room.now, into: &room.sink)
        return last
    }

    static func remb(_ bitsPerSecond: UInt64) -> ReceiverEstimatedMaxBitrate {
        ReceiverEstimatedMaxBitrate(senderSSRC: SSRC(0xAA), bitrate: bitsPerSecond, ssrcs: [SSRC(0xA1)])
    }

    @Test func aSlowSubscriberGetsTheLayerItsLinkCarriesAndComesBackUp() throws {
        var room = try Self.flowingRoom()
        // No word from alice's link yet: the render size alone decides.
        #expect(try Self.run(&room, seconds: 1, to: S.alice).suffix(5) == [2, 2, 2, 2, 2])

        // alice (no transport-cc) says 100 kbit/s: only q fits. (f goes on
        // until q's next keyframe, a second here; her pacer, at 250 kbit/s,
        // takes another to drain it.)
        room.router.receiveControl(Self.remb(100_000), from: S.alice, now: room.now, into: &room.sink)
        let slow = try Self.run(&room, seconds: 3, to: S.alice)
        #expect(slow.suffix(30).allSatisfy { $0 == 0 }, "\(slow)")
        #expect(room.router.allocationFigures(subscriber: S.alice).map { $0.allocated <= 100_000 } == true)
        // bob, who said nothing, keeps the top layer.
        #expect(try Self.run(&room, seconds: 1, to: S.bob).suffix(5) == [2, 2, 2, 2, 2])

        // Room for everything: back up to f, after the 5 s hold at most.
        room.router.receiveControl(Self.remb(2_000_000), from: S.alice, now: room.now, into: &room.sink)
        let fast = try Self.run(&room, seconds: 7, to: S.alice)
        #expect(fast.suffix(30).allSatisfy { $0 == 2 }, "\(fast)")
        #expect(room.router.counters.layerSwitches >= 2)
    }

    /// f pauses (nobody takes it): what alice wants still counts f at the
    /// rate it had while it flowed, not the fraction its fading 1-2 s
    /// window measures, so she probes for it.
    @Test func aPausedLayerIsWantedAtTheRateItFlowedAt() throws {
        var room = try Self.flowingRoom()
        room.router.receiveControl(Self.remb(100_000), from: S.alice, now: room.now, into: &room.sink)
        for _ in 0..<(4 * 30) { Self.sendFrame(&room, layers: 0..<2) }
        let wanted = try #require(room.router.allocationFigures(subscriber: S.alice)).wanted
        // f flowed at about 240 kbit/s as measured (30 x 1,100 bytes and
        // headers, over windows that began with its start); what is live
        // (q, h) is about 150 kbit/s.
        #expect(wanted >= 200_000, "wanted \(wanted)")
    }

    @Test func tooLittleForTheLowestLayerSwitchesOffWithNetworkCongestionThenOn() throws {
        var room = try Self.flowingRoom()
        _ = room.router.takeEvents()
        room.router.receiveControl(Self.remb(30_000), from: S.alice, now: room.now, into: &room.sink)
        _ = try Self.run(&room, seconds: 1, to: S.alice)
        let off = try Self.run(&room, seconds: 1, to: S.alice)
        #expect(off.isEmpty, "nothing flows while off: \(off.count) packets")
        #expect(room.router.takeEvents().contains(.switchedOff(track: S.video, subscriber: S.alice, reason: .networkCongestion)))
        #expect(room.router.downTrackStats(track: S.video, subscriber: S.alice)?.switchOffReason == .networkCongestion)

        room.router.receiveControl(Self.remb(2_000_000), from: S.alice, now: room.now, into: &room.sink)
        let on = try Self.run(&room, seconds: 7, to: S.alice)
        #expect(room.router.takeEvents().contains(.switchedOn(track: S.video, subscriber: S.alice)))
        #expect(on.suffix(30).count == 30, "flowing again")
    }

    @Test func maxSubscriptionBitrateCapsWithoutAnyFeedback() throws {
        var room = try Self.flowingRoom()
        try room.router.setAllocationProfile(
            subscriber: S.bob, AllocationProfile(mode: .grid, maxSubscriptionBitrate: 120_000))
        let capped = try Self.run(&room, seconds: 2, to: S.bob)
        #expect(capped.suffix(30).allSatisfy { $0 == 0 }, "\(capped)")
        try room.router.setAllocationProfile(subscriber: S.bob, AllocationProfile(mode: .grid))
        let free = try Self.run(&room, seconds: 2, to: S.bob)
        #expect(free.suffix(10).allSatisfy { $0 == 2 }, "\(free)")
    }

    /// carol (transport-cc and RTX): once her feedback comes, probe
    /// clusters go out as padding-only RTX packets, spread over ticks, with
    /// transport-wide numbers that continue the media's and that her
    /// feedback maps back to their cluster.
    @Test func probesArePacedPaddingOnRTXWithTransportWideNumbers() throws {
        var room = try Self.flowingRoom()
        let last = try Self.startFeedback(&room, from: Self.carol, mediaSSRC: SSRC(0xC1))

        // Ticks every 2.5 ms for 100 ms: the first cluster goes out.
        var probes: [(at: MediaTime, packet: SentPacket)] = []
        for _ in 0..<40 {
            let deadline = room.tick()
            for packet in room.sink.drain() where packet.transport == Self.carol && packet.kind == .rtp {
                probes.append((room.now, packet))
            }
            #expect(deadline <= room.now.adding(nanoseconds: 200_000_000))
            room.advance(ms: 2)
            room.now = room.now.adding(nanoseconds: 500_000)
        }
        let padding = probes.filter { $0.packet.bytes[0] & 0x20 != 0 && $0.packet.bytes[1] & 0x7F == 97 }
        #expect(padding.count >= 5, "a cluster is at least 5 packets: \(padding.count)")
        #expect(padding.count == probes.count, "only probes went out between frames")
        #expect(room.router.probePacketsSent(subscriber: Self.carol) == UInt64(padding.count))
        #expect(room.router.counters.probePacketsSent == UInt64(padding.count))
        let parsed = try padding.map { try $0.packet.rtp() }
        #expect(parsed.allSatisfy { $0.ssrc == SSRC(0xC2) && $0.payload.isEmpty })
        let numbers = try parsed.map { try #require($0.extensions[3]).transportSequence }
        #expect(numbers.first == last &+ 1)
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
        // Paced: the cluster's packets are spread over more than one tick.
        #expect(Set(padding.map(\.at)).count > 1, "sent in one burst")

        // Her feedback on them maps back to the cluster.
        let report = TransportCCFeedback(
            senderSSRC: SSRC(9), mediaSSRC: SSRC(0xC1), baseSequenceNumber: numbers[0], referenceTime: 11,
            feedbackPacketCount: 1, deltas: numbers.map { _ in 4 })
        room.router.receiveControl(report, from: Self.carol, now: room.now, into: &room.sink)
        #expect(room.router.feedbackCounts(subscriber: Self.carol)?.received == UInt64(numbers.count) + 1)
    }

    /// A subscriber whose only video is off and never sent (here by its own
    /// request; on a 300 kbit/s start estimate the allocator may do the
    /// same) is still probed, on that track's RTX stream: nothing else
    /// could show its link has room. Its audio carries the feedback.
    @Test func aTrackThatNeverSentStillCarriesProbes() throws {
        var room = try SimulcastRoom()
        try room.router.addSubscriber(transport: Self.carol, midExtensionID: 4, transportCCExtensionID: 3)
        try room.router.addDownTrack(
            track: S.video, subscriber: Self.carol, ssrc: SSRC(0xC1), rtxSSRC: SSRC(0xC2), payloadType: 96,
            rtxPayloadType: 97, mid: "5", initialSequenceNumber: 7)
        try room.router.addDownTrack(track: S.audio, subscriber: Self.carol, ssrc: SSRC(0xC3), payloadType: 111, mid: "6")
        try room.router.setSwitchedOffBySubscriber(track: S.video, subscriber: Self.carol, true, now: room.now)
        var numbers: [UInt16] = []
        for n in 0..<10 {
            let header = RTPHeader(
                marker: false, payloadType: 111, sequenceNumber: UInt16(n), timestamp: UInt32(960 * n), ssrc: S.audioSSRC)
            room.send(Publish.write(header, [UInt8](repeating: 0x11, count: 80)))
            Self.sendFrame(&room, keyframe: n == 0)
            numbers += try room.sink.drain().rtp(to: Self.carol).map {
                #expect($0.ssrc == SSRC(0xC3), "only audio while the video is off")
                return try #require($0.extensions[3]).transportSequence
            }
        }
        let last = try #require(numbers.last)
        room.router.receiveControl(
            TransportCCFeedback(
                senderSSRC: SSRC(9), mediaSSRC: SSRC(0xC3), baseSequenceNumber: last, referenceTime: 10,
                feedbackPacketCount: 0, deltas: [4]),
            from: Self.carol, now: room.now, into: &room.sink)
        var padding = 0
        for _ in 0..<40 {
            room.tick()
            padding += try room.sink.drain().rtp(to: Self.carol).filter { $0.ssrc == SSRC(0xC2) && $0.payload.isEmpty }.count
            room.advance(ms: 3)
        }
        #expect(padding >= 5, "the first probe cluster went out on the RTX stream of the video that is off")
        // With her only video off by her own choice she wants no more than
        // her audio: no idle probes after the start (they go no higher
        // than what the allocator wants).
        var later = 0
        for _ in 0..<(12_000 / 5) {
            room.tick()
            later += try room.sink.drain().rtp(to: Self.carol).filter { $0.ssrc == SSRC(0xC2) }.count
            room.advance(ms: 5)
        }
        #expect(later == 0, "idle probes for nothing wanted: \(later) packets in 12 s")
    }

    /// bob has transport-cc but no RTX: no probe, whatever his estimator
    /// asks (padding on his media SSRC would take the decoder's numbers,
    /// and copies of what he already got fail his SRTP replay check).
    @Test func noRTXNoProbes() throws {
        var room = try Self.flowingRoom()
        try Self.startFeedback(&room, from: S.bob, mediaSSRC: SSRC(0xB1))
        for _ in 0..<20 {
            room.tick()
            room.advance(ms: 5)
        }
        #expect(room.router.probePacketsSent(subscriber: S.bob) == 0)
    }
}

extension Array where Element == UInt8 {
    /// A two-byte transport-wide sequence number extension's value.
    var transportSequence: UInt16 { UInt16(self[0]) << 8 | UInt16(self[1]) }
}

/// Pacing (issue 13, item 4): a connection whose client gives feedback has
/// its bursts spread at 2.5 times its estimate; its transport-wide numbers
/// are given as packets leave. Connections without feedback are not paced.
@Suite struct DownlinkPacingTests {
    typealias S = SimulcastRoom
    typealias D = DownlinkAllocationTests

    @Test func aBurstIsSpreadAtThePacingRateAndNumberedAsItLeaves() throws {
        var room = try D.flowingRoom()
        try D.startFeedback(&room, from: D.carol, mediaSSRC: SSRC(0xC1))
        room.advance(ms: 200)
        room.tick()
        _ = room.sink.drain()
        let estimate = try #require(room.router.downlinkEstimate(subscriber: D.carol))
        #expect(room.router.pacerFigures(subscriber: D.carol) != nil, "paced once feedback came")
        #expect(room.router.pacerFigures(subscriber: S.bob) == nil, "bob gives no feedback: not paced")

        // 20 packets of 1,100 bytes on every layer at once (22 KB of
        // whichever layer she gets).
        let burstAt = room.now
        for _ in 0..<20 {
            for layer in 0..<3 { D.sendPacket(&room, layer: layer, payloadBytes: 1100) }
        }
        let atOnce = room.sink.drain()
        let direct = try atOnce.rtp(to: D.carol).filter { $0.payloadType == 96 }
        #expect(direct.count < 5, "the burst allowance lets one or two through: \(direct.count)")
        #expect(try atOnce.rtp(to: S.bob).count == 20, "an unpaced subscriber gets the burst at once")
        let wanted = try #require(room.router.tickWanted)
        #expect(wanted <= burstAt.adding(milliseconds: 10))

        // Ticks at the router's deadlines until it is all out.
        var released: [(at: MediaTime, packet: ParsedRTP)] = direct.map { (burstAt, $0) }
        while released.count < 20 && room.now < burstAt.adding(milliseconds: 1_000) {
            let next = room.tick()
            released += try room.sink.drain().rtp(to: D.carol).filter { $0.payloadType == 96 }.map { (room.now, $0) }
            room.now = max(next, room.now.adding(nanoseconds: 100_000))
        }
        #expect(released.count == 20)
        let sequences = released.map(\.packet.sequenceNumber)
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 &+ 1 }, "in order: \(sequences)")
        let numbers = try released.map { try #require($0.packet.extensions[3]).transportSequence }
        // Increasing in the order they left (probe padding, filtered out
        // here, takes numbers in between).
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $1 > $0 }, "numbered as they leave: \(numbers)")
        // 22 KB at 2.5 x the estimate, less the burst allowance.
        let spread = Double(released.last!.at.nanoseconds(since: burstAt)) / 1e9
        let expected = Double(20 * 1_100 * 8) / (2.5 * Double(estimate))
        #expect(spread > expected * 0.7 && spread < expected * 1.3, "spread over \(spread) s, expected \(expected) s")
        let figures = try #require(room.router.pacerFigures(subscriber: D.carol))
        #expect(figures.queued == 0)
        #expect(figures.counters.maximumQueueDelayNanoseconds > 0)
    }
}

extension DownlinkPacingTests {
    /// One connection holds at most a quarter of the room's pool: a slow
    /// subscriber's backlog leaves room for the others' bursts.
    @Test func oneConnectionTakesAtMostAQuarterOfThePool() throws {
        var room = try D.flowingRoom()
        try D.startFeedback(&room, from: D.carol, mediaSSRC: SSRC(0xC1))
        room.advance(ms: 200)
        room.tick()
        _ = room.sink.drain()
        let dropsBefore = room.router.counters.dropped(.pacerQueue)
        for _ in 0..<400 {
            for layer in 0..<3 { D.sendPacket(&room, layer: layer, payloadBytes: 1100) }
        }
        let queued = try #require(room.router.pacerFigures(subscriber: D.carol)).queued
        #expect(queued <= HeldPacketPool.capacity / 4, "\(queued) held")
        #expect(room.router.counters.dropped(.pacerQueue) > dropsBefore)
    }
}

/// The room's dominant speaker reaches the allocator: with room for one
/// video of two, the speaker's is the one forwarded when the profile gives
/// the dominant speaker a higher priority.
@Suite struct DownlinkDominantSpeakerTests {
    static let publishers = [TransportID(1), TransportID(2)]
    static let tracks = [TrackID(1), TrackID(2)]
    static let viewer = TransportID(10)

    static func forwarded(speaker: Int?) throws -> [TrackID] {
        let router = Router()
        var sink = CollectingSink()
        for index in 0..<2 {
            try router.addPublisher(transport: publishers[index], transportCCExtensionID: nil, midExtensionID: nil)
            try router.addReceiver(
                track: tracks[index], publisher: publishers[index], kind: .video, mid: "\(index)", payloadType: 96,
                ssrc: SSRC(UInt32(0x100 + index)), clockRate: 90_000)
        }
        try router.addSubscriber(transport: viewer, midExtensionID: nil, transportCCExtensionID: nil)
        for index in 0..<2 {
            try router.addDownTrack(
                track: tracks[index], subscriber: viewer, ssrc: SSRC(UInt32(0x200 + index)), payloadType: 96)
        }
        try router.setAllocationProfile(
            subscriber: viewer, AllocationProfile(mode: .collaboration, dominantSpeakerPriority: .high))
        router.setDominantSpeaker(publisher: speaker.map { publishers[$0] })
        var now = MediaTime.seconds(1)
        // Both at about 110 kbit/s for 2 s, then a REMB with room for one.
        var received: [SSRC] = []
        for n in 0..<120 {
            if n == 60 {
                router.receiveControl(
                    ReceiverEstimatedMaxBitrate(senderSSRC: SSRC(9), bitrate: 160_000, ssrcs: []), from: viewer,
                    now: now, into: &sink)
            }
            for index in 0..<2 {
                router.receive(
                    Publish.vp8(
                        sequence: UInt16(n), timestamp: UInt32(3000 * n), ssrc: SSRC(UInt32(0x100 + index)),
                        keyframe: n % 30 == 0, payloadBytes: 420),
                    from: publishers[index], now: now, into: &sink)
            }
            now = now.adding(milliseconds: 33)
            _ = router.tick(now: now, into: &sink)
            let sent = try sink.drain().rtp(to: viewer)
            if n >= 90 { received += sent.map(\.ssrc) }
        }
        return tracks.indices.filter { received.contains(SSRC(UInt32(0x200 + $0))) }.map { tracks[$0] }
    }

    @Test func theSpeakersVideoIsTheOneThatFits() throws {
        #expect(try Self.forwarded(speaker: nil) == [Self.tracks[0]], "without a speaker: track order")
        #expect(try Self.forwarded(speaker: 1) == [Self.tracks[1]])
    }
}

/// The first second of feedback: the 300 kbit/s start estimate is a guess,
/// so a track that does not fit it keeps its lowest layer instead of being
/// switched off at join (`predicted` acts as `detected` until the start
/// probes answer or the second is over).
@Suite struct DownlinkStartupTests {
    @Test func noSwitchOffOnTheStartEstimate() throws {
        let router = Router()
        var sink = CollectingSink()
        let publisher = TransportID(1)
        let viewer = TransportID(10)
        try router.addPublisher(transport: publisher, transportCCExtensionID: nil, midExtensionID: nil)
        try router.addReceiver(
            track: TrackID(1), publisher: publisher, kind: .video, mid: "0", payloadType: 96, ssrc: SSRC(0x100),
            clockRate: 90_000)
        try router.addSubscriber(transport: viewer, midExtensionID: nil, transportCCExtensionID: 3)
        try router.addDownTrack(track: TrackID(1), subscriber: viewer, ssrc: SSRC(0x200), payloadType: 96)
        var now = MediaTime.seconds(1)
        var events: [RouterEvent] = []
        // About 400 kbit/s: more than the start estimate holds.
        for n in 0..<45 {
            router.receive(
                Publish.vp8(
                    sequence: UInt16(n), timestamp: UInt32(3000 * n), ssrc: SSRC(0x100), keyframe: n == 0,
                    payloadBytes: 1_000),
                from: publisher, now: now, into: &sink)
            let sent = try sink.drain().rtp(to: viewer)
            if n == 15, let number = sent.last?.extensions[3]?.transportSequence {
                router.receiveControl(
                    TransportCCFeedback(
                        senderSSRC: SSRC(9), mediaSSRC: SSRC(0x200), baseSequenceNumber: number, referenceTime: 10,
                        feedbackPacketCount: 0, deltas: [4]),
                    from: viewer, now: now, into: &sink)
            }
            now = now.adding(milliseconds: 20)
            _ = router.tick(now: now, into: &sink)
            events += router.takeEvents()
        }
        #expect(router.allocationFigures(subscriber: viewer) != nil, "allocated since the feedback")
        #expect(!events.contains { if case .switchedOff = $0 { true } else { false } }, "\(events)")
    }
}
