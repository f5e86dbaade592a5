import Packets
import Testing
import WebRTC
@testable import SFU

/// Simulcast scenarios on virtual time (PROTOCOL.md section 7): a publisher
/// with layers q, h, f, and subscribers alice and bob.
@Suite struct RouterSimulcastTests {
    typealias S = SimulcastRoom

    /// Alice on q (render 320x180), bob on f (no render size), both started.
    func started() throws -> SimulcastRoom {
        var room = try SimulcastRoom()
        try room.router.setRenderDimensions(track: S.video, subscriber: S.alice, width: 320, height: 180, now: room.now)
        room.tick()
        room.frame(keyframes: [0, 1, 2])
        return room
    }

    @Test func eachSubscriberGetsTheLayerItsRenderSizeNeedsAskedForOnThatLayersSSRC() throws {
        var room = try SimulcastRoom()
        try room.router.setRenderDimensions(track: S.video, subscriber: S.alice, width: 320, height: 180, now: room.now)
        room.tick()
        let asked = try S.pliTargets(room.sink.drain())
        #expect(Set(asked) == [S.ssrc(0), S.ssrc(2)])
        room.frame(keyframes: [0, 1, 2])
        room.frame()
        let sent = room.sink.drain()
        let alice = try sent.rtp(to: S.alice)
        let bob = try sent.rtp(to: S.bob)
        #expect(alice.map(S.layer(of:)) == [0, 0])
        #expect(alice.map(\.ssrc) == [SSRC(0xA1), SSRC(0xA1)])
        #expect(alice.map(\.sequenceNumber) == [100, 101])
        #expect(bob.map(S.layer(of:)) == [2, 2])
        #expect(bob.map(\.sequenceNumber) == [60_000, 60_001])
        let stats = try #require(room.router.downTrackStats(track: S.video, subscriber: S.alice))
        #expect(stats.layer == ForwardedLayer(rid: "q", spatial: 0, temporal: 0))
        #expect(room.router.downTrackStats(track: S.video, subscriber: S.bob)?.layer?.rid == "f")
        // 640x360 is h; a size no layer covers is f.
        try room.router.setRenderDimensions(track: S.video, subscriber: S.alice, width: 360, height: 640, now: room.now)
        room.advance(ms: 500)
        room.tick()
        #expect(try S.pliTargets(room.sink.drain()) == [S.ssrc(1)])
    }

    @Test func switchesOnlyAtTheTargetsKeyframeAndTheStreamStaysContinuous() throws {
        var room = try started()
        room.frame()
        room.frame()
        let before = try room.sink.drain().rtp(to: S.alice)
        #expect(before.map(\.sequenceNumber) == [100, 101, 102])
        let last = try #require(before.last)
        room.advance(ms: 600)
        try room.router.setRenderDimensions(
            track: S.video, subscriber: S.alice, width: 1280, height: 720, now: room.now)
        room.tick()
        #expect(try S.pliTargets(room.sink.drain()) == [S.ssrc(2)])
        // Until f's keyframe, alice keeps getting q.
        room.frame()
        room.frame()
        let waiting = try room.sink.drain().rtp(to: S.alice)
        #expect(waiting.map(S.layer(of:)) == [0, 0])
        #expect(waiting.map(\.sequenceNumber) == [103, 104])
        #expect(waiting.map(\.timestamp) == [last.timestamp + 3000, last.timestamp + 6000])
        let lastQ = try #require(waiting.last)
        // h's keyframe is not the target's: no switch.
        room.frame(keyframes: [1])
        room.frame(layers: [0, 1])
        // f's keyframe 33 ms after q's last frame, then f's next frame.
        room.frame(layers: [2], keyframes: [2])
        room.frame()
        let switched = try room.sink.drain().rtp(to: S.alice)
        #expect(switched.map(S.layer(of:)) == [0, 0, 2, 2])
        #expect(switched.map(\.ssrc) == [SSRC(0xA1), SSRC(0xA1), SSRC(0xA1), SSRC(0xA1)])
        #expect(switched.map(\.sequenceNumber) == [105, 106, 107, 108])
        // 33 ms at 90 kHz is 2970 ticks; then f's own 3000 per frame.
        #expect(switched[0].timestamp == lastQ.timestamp + 3000)
        #expect(switched[1].timestamp == switched[0].timestamp + 3000)
        #expect(switched[2].timestamp == switched[1].timestamp + 2970)
        #expect(switched[3].timestamp == switched[2].timestamp + 3000)
        let pictures = switched.compactMap(\.pictureID)
        #expect(pictures == [pictures[0], pictures[0] + 1, pictures[0] + 2, pictures[0] + 3])
        let tl0 = switched.compactMap(\.tl0PicIdx)
        #expect(tl0 == [tl0[0], tl0[0] + 1, tl0[0] + 2, tl0[0] + 3])
        let stats = try #require(room.router.downTrackStats(track: S.video, subscriber: S.alice))
        #expect(stats.layerSwitches == 1)
        #expect(stats.layer == ForwardedLayer(rid: "f", spatial: 2, temporal: 0))
        // Bob, on f all along, saw no switch.
        #expect(room.router.downTrackStats(track: S.video, subscriber: S.bob)?.layerSwitches == 0)
    }

    @Test func aTargetKeyframeThatNeverComesIsGivenUpForTheNextLiveLayerBelow() throws {
        var room = try started()
        room.advance(ms: 600)
        try room.router.setRenderDimensions(
            track: S.video, subscriber: S.alice, width: 1280, height: 720, now: room.now)
        room.tick()
        _ = room.sink.drain()
        // f never sends a keyframe; alice stays on q meanwhile.
        let start = room.now
        while room.now.nanoseconds(since: start) < 2_000_000_000 {
            room.frame()
            room.tick()
        }
        let sent = room.sink.drain()
        #expect(try sent.rtp(to: S.alice).allSatisfy { S.layer(of: $0) == 0 })
        // Given up on f: h is asked for, and its keyframe switches alice.
        #expect(try S.pliTargets(sent).contains(S.ssrc(1)))
        room.frame(keyframes: [2])
        #expect(try room.sink.drain().rtp(to: S.alice).map(S.layer(of:)) == [0])
        room.frame(keyframes: [1])
        room.frame()
        let after = try room.sink.drain().rtp(to: S.alice)
        #expect(after.map(S.layer(of:)) == [0, 1, 1])
        #expect(room.router.downTrackStats(track: S.video, subscriber: S.alice)?.layer?.rid == "h")
    }

    @Test func aLayerThatStopsIsLeftForTheBestLiveOne() throws {
        var room = try started()
        // f stops (the publisher paused it): after 1.5 s bob moves to h.
        let start = room.now
        var asked: [SSRC] = []
        while room.now.nanoseconds(since: start) < 1_600_000_000 {
            room.frame(layers: [0, 1])
            room.tick()
            asked += try S.pliTargets(room.sink.drain())
        }
        #expect(asked.contains(S.ssrc(1)))
        let lastBob = room.router.downTrackStats(track: S.video, subscriber: S.bob)?.packets
        room.frame(layers: [0, 1], keyframes: [1])
        room.frame(layers: [0, 1])
        let bob = try room.sink.drain().rtp(to: S.bob)
        #expect(bob.map(S.layer(of:)) == [1, 1])
        #expect(bob.map(\.sequenceNumber) == [60_001, 60_002])
        #expect(lastBob == 1)
    }

    @Test func temporalLayersAboveTheCapAreDroppedByWholeFramesWithoutSequenceGaps() throws {
        var room = try Room()
        room.tick()
        try room.router.setTemporalLayerCap(track: Room.video, subscriber: Room.alice, 0)
        // Frames of two packets, TIDs 0 2 1 2 0 2 1 2 (L1T3).
        let pattern: [UInt8] = [0, 2, 1, 2, 0, 2, 1, 2]
        var sequence: UInt16 = 1000
        var tl0: UInt8 = 9
        func frame(_ n: Int, tid: UInt8, sync: Bool = false, room: inout Room) {
            if tid == 0 { tl0 &+= 1 }
            for part in 0..<2 {
                let header = RTPHeader(
                    marker: part == 1, payloadType: 96, sequenceNumber: sequence, timestamp: UInt32(3000 * n),
                    ssrc: Room.videoSSRC)
                room.send(Publish.write(header, SimulcastPayload.vp8(
                    pictureID: UInt16(700 + n), tl0PicIdx: tl0, temporalLayer: tid, layerSync: sync,
                    keyframe: n == 0 && part == 0, startOfFrame: part == 0)))
                sequence &+= 1
            }
            room.advance(ms: 33)
        }
        for (n, tid) in pattern.enumerated() { frame(n, tid: tid, room: &room) }
        var sent = room.sink.drain()
        var alice = try sent.rtp(to: Room.alice)
        // Frames 0 and 4 only, numbered without a hole; bob got everything.
        #expect(alice.map(\.sequenceNumber) == [100, 101, 102, 103])
        #expect(alice.map(\.timestamp) == [0, 0, 12_000, 12_000])
        #expect(alice.compactMap(\.pictureID) == [700, 700, 701, 701])
        #expect(try sent.rtp(to: Room.bob).count == 16)
        var stats = try #require(room.router.downTrackStats(track: Room.video, subscriber: Room.alice))
        #expect(stats.temporalSkipped == 12)
        #expect(stats.layer?.temporal == 0)
        // Up to 2: TID 1 without Y stays out; with Y it comes in.
        try room.router.setTemporalLayerCap(track: Room.video, subscriber: Room.alice, nil)
        frame(8, tid: 1, room: &room)
        frame(9, tid: 2, sync: true, room: &room)
        frame(10, tid: 0, room: &room)
        sent = room.sink.drain()
        alice = try sent.rtp(to: Room.alice)
        #expect(alice.map(\.sequenceNumber) == [104, 105, 106, 107])
        #expect(alice.compactMap(\.pictureID) == [702, 702, 703, 703])
        stats = try #require(room.router.downTrackStats(track: Room.video, subscriber: Room.alice))
        #expect(stats.layer?.temporal == 2)
        #expect(stats.layerSwitches == 1)  // the cap before the first packet is no switch
    }

    @Test func aRIDThatNamesNoLayerIsDroppedAndCounted() throws {
        var room = try SimulcastRoom(declareSSRCs: false)
        room.tick()
        _ = room.sink.drain()
        let header = RTPHeader(
            payloadType: 96, sequenceNumber: 1, timestamp: 0, ssrc: SSRC(0x5555),
            extensions: [.init(id: 4, value: Array("0".utf8)), .init(id: 10, value: Array("x".utf8))])
        room.send(Publish.write(header, SimulcastPayload.vp8(pictureID: 1, tl0PicIdx: 1, keyframe: true)))
        #expect(room.router.counters.dropped(.unknownRID) == 1)
        #expect(room.router.counters.packetsReceived.video == 0)
        #expect(room.sink.drain().isEmpty)
        // A known RID from the same SSRC later binds it.
        room.send(S.packet(layer: 2, frame: 0, keyframe: true, withRID: true).withSSRC(SSRC(0x5555)))
        #expect(room.router.counters.dropped(.unknownRID) == 1)
        #expect(try room.sink.drain().rtp(to: S.bob).count == 1)
    }

    @Test func ssrcsAreBoundByRIDAndRTXByRepairedRIDThenNACKedOnTheLayersSSRC() throws {
        var room = try SimulcastRoom(declareSSRCs: false)
        try room.router.setRenderDimensions(track: S.video, subscriber: S.alice, width: 640, height: 360, now: room.now)
        room.tick()
        _ = room.sink.drain()
        for layer in 0..<3 {
            room.send(S.packet(layer: layer, frame: 0, keyframe: true, withRID: true))
            room.frames[layer] = 1
        }
        room.advance(ms: 33)
        room.frame()  // no extensions: by SSRC now
        var sent = room.sink.drain()
        #expect(try sent.rtp(to: S.alice).map(S.layer(of:)) == [1, 1])
        #expect(try sent.rtp(to: S.bob).map(S.layer(of:)) == [2, 2])
        #expect(room.router.receiverSSRCs(track: S.video)?.ssrc == S.ssrc(0))
        // h loses frame 2: the NACK goes on h's SSRC.
        room.frames[1] = 3
        room.frame()
        sent = room.sink.drain()
        let nacks = try sent.rtcp(to: S.publisher).compactMap { if case .nack(let n) = $0 { n } else { nil } }
        #expect(nacks.map(\.mediaSSRC) == [S.ssrc(1)])
        #expect(nacks.first?.items == [NACKItem(packetID: 2002)])
        #expect(room.router.receiverStats(track: S.video, rid: "h")?.nacksSent == 1)
        #expect(room.router.receiverStats(track: S.video, rid: "f")?.nacksSent == 0)
        #expect(try sent.rtp(to: S.alice).map(\.sequenceNumber) == [103])
        // The repair comes on a new SSRC with MID and repaired RID "h".
        let original = S.packet(layer: 1, frame: 2)
        room.send(Publish.rtx(
            of: original, sequence: 1, ssrc: S.rtxSSRC(1),
            extensions: [.init(id: 4, value: Array("0".utf8)), .init(id: 11, value: Array("h".utf8))]))
        let repaired = try room.sink.drain().rtp(to: S.alice)
        #expect(repaired.map(\.sequenceNumber) == [102])
        #expect(repaired.map(S.layer(of:)) == [1])
        #expect(room.router.counters.dropped(.unknownSSRC) == 0)
    }

    @Test func eachLayerHasItsOwnReceptionReport() throws {
        var room = try started()
        room.frame()
        room.frame(layers: [0, 2])  // h misses a frame: its numbering has a gap
        room.frame()
        room.tick()
        room.advance(ms: 1000)
        room.tick()
        let reports = try room.sink.drain().rtcp(to: S.publisher).compactMap {
            if case .rr(let rr) = $0 { rr } else { nil }
        }
        let blocks = reports.flatMap(\.reports)
        #expect(Set(blocks.map(\.ssrc)) == [S.ssrc(0), S.ssrc(1), S.ssrc(2)])
        #expect(blocks.first { $0.ssrc == S.ssrc(0) }?.extendedHighestSequence == 1003)
        #expect(blocks.first { $0.ssrc == S.ssrc(1) }?.extendedHighestSequence == 2002)
        #expect(blocks.first { $0.ssrc == S.ssrc(2) }?.extendedHighestSequence == 3003)
    }

    /// `/Stats` shows a simulcast track as one: its layers' packets and
    /// bytes together, and a bitrate over all of them.
    @Test func aSimulcastTracksFiguresAreItsLayersTogether() throws {
        var room = try started()
        room.frame()
        room.frame(layers: [0, 2])
        room.tick()
        let snapshot = try #require(room.router.receiverSnapshot(track: S.video, now: room.now))
        let layers = try S.rids.map { try #require(room.router.receiverStats(track: S.video, rid: $0)) }
        #expect(snapshot.stats.packets == layers.reduce(0) { $0 + $1.packets })
        #expect(snapshot.stats.packets > layers[0].packets)
        #expect(snapshot.stats.bytes == layers.reduce(0) { $0 + $1.bytes })
        #expect(snapshot.ssrc == S.ssrc(0))
        room.advance(ms: 1000)
        room.frame()
        room.tick()
        room.advance(ms: 1000)
        let rate = try #require(room.router.receiverSnapshot(track: S.video, now: room.now)?.rate)
        #expect(rate.packetsPerSecond > 0, "\(rate)")
    }

    @Test func subscriberPLIAndNACKGoToTheForwardedLayer() throws {
        var room = try started()
        room.frame()
        room.advance(ms: 600)
        _ = room.sink.drain()
        // Alice (on q) loses her second packet and asks for a keyframe.
        let nack = GenericNACK(senderSSRC: SSRC(5), mediaSSRC: SSRC(0xA1), lostSequenceNumbers: [101])
        room.router.receiveControl(nack, from: S.alice, now: room.now, into: &room.sink)
        let pli = PictureLossIndication(senderSSRC: SSRC(5), mediaSSRC: SSRC(0xA1))
        room.router.receiveControl(pli, from: S.alice, now: room.now, into: &room.sink)
        var sent = room.sink.drain()
        let resent = try sent.rtp(to: S.alice)
        #expect(resent.count == 1)
        #expect(resent.first?.ssrc == SSRC(0xA2))  // her RTX SSRC
        #expect(resent.first.flatMap(S.layer(of:)) == 0)
        #expect(try S.pliTargets(sent) == [S.ssrc(0)])
        // Bob (on f) too: f's history, f's SSRC.
        let bobNACK = GenericNACK(senderSSRC: SSRC(6), mediaSSRC: SSRC(0xB1), lostSequenceNumbers: [60_001])
        room.router.receiveControl(bobNACK, from: S.bob, now: room.now, into: &room.sink)
        let bobPLI = PictureLossIndication(senderSSRC: SSRC(6), mediaSSRC: SSRC(0xB1))
        room.router.receiveControl(bobPLI, from: S.bob, now: room.now, into: &room.sink)
        sent = room.sink.drain()
        let bobResent = try sent.rtp(to: S.bob)
        #expect(bobResent.map(\.sequenceNumber) == [60_001])
        #expect(bobResent.map(S.layer(of:)) == [2])
        #expect(bobResent.first?.pictureID == 601)  // f frame 1, as first sent
        #expect(try S.pliTargets(sent) == [S.ssrc(2)])
        #expect(room.router.counters.nackMisses == 0)
    }

    @Test func aSubscriberSwitchesATrackOffAndBackOn() throws {
        var room = try started()
        _ = room.router.takeEvents()
        _ = room.sink.drain()
        try room.router.setSwitchedOffBySubscriber(track: S.video, subscriber: S.alice, true, now: room.now)
        #expect(room.router.takeEvents() == [.switchedOff(track: S.video, subscriber: S.alice, reason: .disabledBySubscriber)])
        var stats = try #require(room.router.downTrackStats(track: S.video, subscriber: S.alice))
        #expect(stats.switchedOff && stats.switchOffReason == .disabledBySubscriber && stats.layer == nil)
        room.frame(keyframes: [0, 1, 2])
        room.frame()
        #expect(try room.sink.drain().rtp(to: S.alice).isEmpty)
        // Again: no new event.
        try room.router.setSwitchedOffBySubscriber(track: S.video, subscriber: S.alice, true, now: room.now)
        #expect(room.router.takeEvents().isEmpty)
        room.advance(ms: 600)
        try room.router.setSwitchedOffBySubscriber(track: S.video, subscriber: S.alice, false, now: room.now)
        #expect(room.router.takeEvents() == [.switchedOn(track: S.video, subscriber: S.alice)])
        room.tick()
        #expect(try S.pliTargets(room.sink.drain()) == [S.ssrc(0)])
        room.frame()
        room.frame(keyframes: [0])
        room.frame()
        let resumed = try room.sink.drain().rtp(to: S.alice)
        #expect(resumed.map(\.sequenceNumber) == [101, 102])
        stats = try #require(room.router.downTrackStats(track: S.video, subscriber: S.alice))
        #expect(!stats.switchedOff && stats.switchOffReason == nil && stats.layer?.rid == "q")
        // Audio is never switched off.
        try room.router.addDownTrack(track: S.audio, subscriber: S.alice, ssrc: SSRC(0xA3), payloadType: 111)
        try room.router.setSwitchedOffBySubscriber(track: S.audio, subscriber: S.alice, true, now: room.now)
        #expect(room.router.takeEvents().isEmpty)
    }

    @Test func aTrackThePublisherDisablesIsSwitchedOffForEverySubscriberOfItsVideo() throws {
        let room = try Room()
        _ = room.router.takeEvents()
        try room.router.setForwarding(track: Room.video, enabled: false, now: room.now)
        try room.router.setForwarding(track: Room.audio, enabled: false, now: room.now)
        #expect(Set(room.router.takeEvents()) == [
            .switchedOff(track: Room.video, subscriber: Room.alice, reason: .disabledByPublisher),
            .switchedOff(track: Room.video, subscriber: Room.bob, reason: .disabledByPublisher),
        ])
        #expect(room.router.downTrackStats(track: Room.video, subscriber: Room.bob)?.switchOffReason == .disabledByPublisher)
        #expect(room.router.downTrackStats(track: Room.audio, subscriber: Room.bob)?.switchedOff == false)
        try room.router.setForwarding(track: Room.video, enabled: true, now: room.now)
        try room.router.setForwarding(track: Room.audio, enabled: true, now: room.now)
        #expect(Set(room.router.takeEvents()) == [
            .switchedOn(track: Room.video, subscriber: Room.alice), .switchedOn(track: Room.video, subscriber: Room.bob),
        ])
    }

    @Test func publisherLayersFollowWhatTheSubscribersNeedAlwaysWithTheLowest() throws {
        var room = try SimulcastRoom(subscribe: false)
        #expect(room.router.takeEvents() == [.publisherLayers(track: S.video, active: ["q"])])
        try room.subscribeAlice()  // no render size: f
        #expect(room.router.takeEvents() == [.publisherLayers(track: S.video, active: ["q", "f"])])
        try room.router.setRenderDimensions(track: S.video, subscriber: S.alice, width: 640, height: 360, now: room.now)
        #expect(room.router.takeEvents() == [.publisherLayers(track: S.video, active: ["q", "h"])])
        room.tick()
        room.frame(keyframes: [0, 1, 2])
        room.tick()
        #expect(room.router.takeEvents().isEmpty)  // on h: nothing changed
        try room.router.setSwitchedOffBySubscriber(track: S.video, subscriber: S.alice, true, now: room.now)
        #expect(room.router.takeEvents() == [
            .switchedOff(track: S.video, subscriber: S.alice, reason: .disabledBySubscriber),
            .publisherLayers(track: S.video, active: ["q"]),
        ])
        try room.router.setSwitchedOffBySubscriber(track: S.video, subscriber: S.alice, false, now: room.now)
        _ = room.router.takeEvents()
        room.router.removeDownTrack(track: S.video, subscriber: S.alice)
        #expect(room.router.takeEvents() == [.publisherLayers(track: S.video, active: ["q"])])
    }

    @Test func layerSizesComeFromKeyframesBeforeDeclaredOrAssumedOnes() throws {
        // Declared sizes say h is 640x360; its keyframes say 960x540.
        var room = try SimulcastRoom(declareSizes: true)
        room.advance(ms: 1)
        let declared = try #require(room.router.receivers[S.video]?.layerSize(1))
        #expect(declared.width == 640 && declared.height == 360)
        let header = RTPHeader(marker: true, payloadType: 96, sequenceNumber: 5, timestamp: 0, ssrc: S.ssrc(1))
        room.send(Publish.write(header, SimulcastPayload.vp8(
            pictureID: 1, tl0PicIdx: 1, keyframe: true, size: (960, 540))))
        let size = try #require(room.router.receivers[S.video]?.layerSize(1))
        #expect(size.width == 960 && size.height == 540)
        // Nothing declared or seen: halves of an assumed 1280x720 top.
        let bare = try SimulcastRoom()
        let q = try #require(bare.router.receivers[S.video]?.layerSize(0))
        #expect(q.width == 320 && q.height == 180)
    }
}

extension Array where Element == UInt8 {
    /// The RTP packet with another SSRC.
    func withSSRC(_ ssrc: SSRC) -> [UInt8] {
        var copy = self
        copy[8] = UInt8(ssrc.rawValue >> 24)
        copy[9] = UInt8(ssrc.rawValue >> 16 & 0xFF)
        copy[10] = UInt8(ssrc.rawValue >> 8 & 0xFF)
        copy[11] = UInt8(ssrc.rawValue & 0xFF)
        return copy
    }
}
