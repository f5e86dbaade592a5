import Packets
import Testing
@testable import SFU

/// A router on a worker that holds some of a room's subscribers while the
/// room's publisher is another worker's connection (`addPublisher(relayed:)`):
/// it forwards and answers its subscribers, and leaves the publisher to
/// the home worker's router.
@Suite struct RouterRelayTests {
    @Test func aRelayedPublisherIsForwardedButGetsNoFeedback() throws {
        var room = try Room(relayed: true)
        room.tick()
        _ = room.sink.drain()
        for n in 0..<4 as Range<UInt16> { room.frame(n, keyframe: n == 0) }
        room.frame(6)  // 1004 and 1005 lost upstream: the home NACKs, not this router
        for _ in 0..<12 {
            room.advance(ms: 100)
            room.tick()
        }
        let sent = room.sink.drain()
        #expect(try sent.rtp(to: Room.alice).map(\.sequenceNumber) == [100, 101, 102, 103, 106])
        #expect(try sent.rtcp(to: Room.publisher).isEmpty, "NACK, RR or transport-cc to a relayed publisher")
        #expect(room.router.counters.nackSent == 0)
        // Not counted as received here: the home's router counted it.
        #expect(room.router.counters.packetsReceived.video == 0)
        #expect(room.router.counters.packetsForwarded.video == 10)
    }

    @Test func keyframeRequestsForARelayedPublisherGoToTheHomeAndTheHomeThrottlesThem() throws {
        var satellite = try Room(relayed: true)
        var home = try Room()
        satellite.tick()
        home.tick()
        satellite.frame(0, keyframe: true)
        home.frame(0, keyframe: true)
        _ = satellite.sink.drain()
        _ = home.sink.drain()
        // A subscriber of the satellite lost its picture.
        satellite.router.receiveControl(
            PictureLossIndication(senderSSRC: SSRC(9), mediaSSRC: SSRC(0xA1)), from: Room.alice, now: satellite.now,
            into: &satellite.sink)
        satellite.tick()
        #expect(try satellite.sink.drain().rtcp(to: Room.publisher).isEmpty)
        let requests = satellite.router.takeRelayedKeyframeRequests()
        #expect(requests == [RelayedKeyframeRequest(publisher: Room.publisher, ssrc: Room.videoSSRC)])
        #expect(satellite.router.takeRelayedKeyframeRequests().isEmpty)
        #expect(satellite.router.counters.pliSent == 0, "the home's router counts the PLI it sends")

        // The home asks the publisher at its next tick, once per 500 ms
        // (past the request its own subscribers' start made).
        home.advance(ms: 600)
        home.tick()
        _ = home.sink.drain()
        for request in requests { home.router.requestKeyframe(publisher: request.publisher, ssrc: request.ssrc) }
        home.tick()
        let first = try home.sink.drain().rtcp(to: Room.publisher).filter { if case .pli = $0 { true } else { false } }
        #expect(first.count == 1)
        home.advance(ms: 100)
        home.router.requestKeyframe(publisher: Room.publisher, ssrc: Room.videoSSRC)
        home.tick()
        #expect(try home.sink.drain().rtcp(to: Room.publisher).filter { if case .pli = $0 { true } else { false } }.isEmpty)
        home.advance(ms: 450)
        home.tick()
        #expect(try home.sink.drain().rtcp(to: Room.publisher).filter { if case .pli = $0 { true } else { false } }.count == 1)
        // An RTX SSRC or an unknown one asks nothing.
        home.advance(ms: 600)
        home.router.requestKeyframe(publisher: Room.publisher, ssrc: Room.rtxSSRC)
        home.router.requestKeyframe(publisher: Room.publisher, ssrc: SSRC(12345))
        home.tick()
        #expect(try home.sink.drain().rtcp(to: Room.publisher).filter { if case .pli = $0 { true } else { false } }.isEmpty)
    }
}
