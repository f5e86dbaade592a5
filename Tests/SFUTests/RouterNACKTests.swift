import Packets
import Testing
import WebRTC
@testable import SFU

/// Losses on the publisher's link: the router NACKs the publisher itself
/// (at once, then retries), so subscribers' own NACKs find the repair in
/// the history.
@Suite struct RouterNACKTests {
    func nacks(_ sent: [SentPacket]) throws -> [[UInt16]] {
        try sent.rtcp(to: Room.publisher).compactMap { packet -> [UInt16]? in
            guard case .nack(let nack) = packet else { return nil }
            #expect(nack.mediaSSRC == Room.videoSSRC)
            var lost: [UInt16] = []
            for item in nack.items {
                lost.append(item.packetID)
                for bit in 0..<16 where item.lostBitmask & (1 << UInt16(bit)) != 0 {
                    lost.append(item.packetID &+ UInt16(bit + 1))
                }
            }
            return lost
        }
    }

    @Test func aGapIsNACKedAtOnceThenRetriedUntilRepaired() throws {
        var room = try Room()
        room.tick()
        _ = room.sink.drain()
        for n in 0..<4 as Range<UInt16> { room.frame(n, keyframe: n == 0) }
        let lost4 = Publish.vp8(sequence: 1004, timestamp: 90_000 + 4 * 3000, ssrc: Room.videoSSRC, pictureID: 204)
        room.frame(6)  // 1004 and 1005 lost
        #expect(try nacks(room.sink.drain()) == [[1004, 1005]])
        room.advance(ms: 50)
        room.tick()
        #expect(try nacks(room.sink.drain()).isEmpty)
        room.advance(ms: 100)
        room.tick()
        #expect(try nacks(room.sink.drain()) == [[1004, 1005]])
        // 1004 comes back as RTX: forwarded into its place, no longer asked for.
        room.send(Publish.rtx(of: lost4, sequence: 7, ssrc: Room.rtxSSRC))
        let alice = try room.sink.drain().rtp(to: Room.alice)
        #expect(alice.map(\.sequenceNumber) == [104])
        room.advance(ms: 100)
        room.tick()
        #expect(try nacks(room.sink.drain()) == [[1005]])
        for _ in 0..<6 {
            room.advance(ms: 100)
            room.tick()
        }
        // 1004 asked for twice; 1005 five times (the limit), then given up.
        #expect(room.router.counters.nackSent == 2 + 5)
        #expect(room.router.receiverStats(track: Room.video)?.nacksSent == 7)
    }

    @Test func aGapTooLongForNACKAsksForAKeyframe() throws {
        var room = try Room()
        room.tick()
        room.frame(0, keyframe: true)
        room.advance(ms: 600)
        _ = room.sink.drain()
        room.frame(300)
        room.tick()
        let sent = try room.sink.drain().rtcp(to: Room.publisher)
        #expect(sent.contains(.pli(PictureLossIndication(senderSSRC: SSRC(1), mediaSSRC: Room.videoSSRC))))
        #expect(!sent.contains { if case .nack = $0 { true } else { false } })
    }
}
