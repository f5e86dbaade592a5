import Packets
import Testing
@testable import SFU

/// The worker's way in (`Router.receiveRTP(slot:...)`): every packet is
/// received into the same ring slot, the NACK history keeps the slot's
/// buffer itself and the slot gets another of the pool's; the copies'
/// payloads are read from the kept buffer, never copied first.
@Suite struct IngressSlotHistoryTests {
    /// Picture `n`'s packet, its payload filled with `n`.
    static func packet(_ n: UInt16) -> [UInt8] {
        Publish.vp8(
            sequence: 1000 &+ n, timestamp: 90_000 &+ UInt32(n) * 3000, ssrc: Room.videoSSRC, pictureID: 200 &+ n,
            keyframe: n == 0, fill: UInt8(truncatingIfNeeded: n))
    }

    /// Receives `packet` into `slot` as `recvmmsg` would; the buffer the
    /// packet was in.
    static func receive(
        _ packet: [UInt8], into slot: inout UnsafeMutableRawBufferPointer, room: inout Room
    ) -> UnsafeMutableRawPointer {
        let before = slot.baseAddress!
        slot.copyBytes(from: packet)
        room.router.receiveRTP(slot: &slot, length: packet.count, from: Room.publisher, now: room.now, into: &room.sink)
        room.advance(ms: 33)
        return before
    }

    @Test func theHistoryKeepsTheSlotsBufferAndRepairsAfterTheSlotIsReused() throws {
        var room = try Room()
        room.tick()
        let pool = room.router.buffers
        var slot = UnsafeMutableRawBufferPointer(start: pool.take(), count: pool.bufferSize)
        var kept: [UnsafeMutableRawPointer] = []
        for n in 0..<10 as Range<UInt16> {
            let buffer = Self.receive(Self.packet(n), into: &slot, room: &room)
            #expect(slot.baseAddress != buffer, "a video packet's buffer goes to the history")
            kept.append(buffer)
            // Both copies' payloads were read from that buffer.
            for tail in room.sink.tails {
                let start = UnsafeRawPointer(buffer)
                #expect(tail.baseAddress! >= start && tail.baseAddress! + tail.count <= start + pool.bufferSize)
            }
            #expect(room.sink.tails.count == 2)
            room.sink.tails.removeAll()
        }
        #expect(Set(kept).count == 10)
        // Audio has no history: its slot stays the slot.
        let audio = Publish.opus(sequence: 5, timestamp: 960, ssrc: Room.audioSSRC)
        #expect(Self.receive(audio, into: &slot, room: &room) == slot.baseAddress)
        // The slot has been written over since; the repairs are the originals.
        _ = room.sink.drain()
        room.advance(ms: 300)
        let nack = GenericNACK(senderSSRC: SSRC(5), mediaSSRC: SSRC(0xA1), lostSequenceNumbers: [102, 105])
        room.router.receiveControl(nack, from: Room.alice, now: room.now, into: &room.sink)
        let repairs = try room.sink.drain().rtp(to: Room.alice)
        #expect(repairs.map { Array($0.payload.prefix(2)) } == [[0, 102], [0, 105]])
        #expect(repairs.map { $0.payload.last } == [2, 5])
        // 10 kept and the slot's: nothing else was allocated.
        #expect(pool.liveCount == 11)
        pool.give(slot.baseAddress!)
    }

    @Test func buffersCirculateOnceTheHistoryIsFullAndComeBackWhenTheTrackGoes() throws {
        var room = try Room()
        room.tick()
        let pool = room.router.buffers
        var slot = UnsafeMutableRawBufferPointer(start: pool.take(), count: pool.bufferSize)
        for n in 0..<2_000 as Range<UInt16> { _ = Self.receive(Self.packet(n), into: &slot, room: &room) }
        _ = room.sink.drain()
        // A full history and the slot: the evicted buffers came back to the slot.
        #expect(pool.liveCount == PacketHistory.capacity + 1)
        #expect(pool.freeCount == 0)
        room.router.removeReceiver(track: Room.video)
        #expect(pool.freeCount == PacketHistory.capacity)
        pool.give(slot.baseAddress!)
        #expect(pool.freeCount == PacketHistory.capacity + 1)
    }

    @Test func aSlotOfAnotherSizeIsCopiedNotKept() throws {
        var room = try Room()
        room.tick()
        let foreign = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
        defer { foreign.deallocate() }
        var slot = foreign
        let packet = Self.packet(0)
        slot.copyBytes(from: packet)
        room.router.receiveRTP(slot: &slot, length: packet.count, from: Room.publisher, now: room.now, into: &room.sink)
        #expect(slot.baseAddress == foreign.baseAddress)
        #expect(try room.sink.drain().rtp(to: Room.alice).count == 1)
        #expect(room.router.buffers.liveCount == 1)  // the history's copy
    }
}
