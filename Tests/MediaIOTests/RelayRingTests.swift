import Foundation
import Packets
import SFU
import Synchronization
import Testing

@testable import MediaIO

/// The single-producer, single-consumer ring between media workers.
@Suite struct RelayRingTests {
    @Test func packetsComeOutInOrderWithTheirHeaders() {
        let ring = RelayRing(capacity: 4, slotSize: 64)
        for n in 0..<3 as Range<UInt8> {
            let bytes: [UInt8] = Array(repeating: n, count: Int(n) + 1)
            let pushed = bytes.withUnsafeBytes {
                ring.push(room: RoomHandle(rawValue: 7), source: TransportID(UInt32(n) + 1), kind: n == 2 ? .rtcp : .rtp, packet: $0)
            }
            #expect(pushed)
        }
        var seen: [(UInt32, RelayRing.Kind, [UInt8])] = []
        let count = ring.drain { header, packet in
            #expect(header.room == RoomHandle(rawValue: 7))
            seen.append((header.source.rawValue, header.kind, Array(packet[0..<header.length])))
        }
        #expect(count == 3)
        #expect(seen.map(\.0) == [1, 2, 3])
        #expect(seen.map(\.1) == [.rtp, .rtp, .rtcp])
        #expect(seen.map(\.2) == [[0], [1, 1], [2, 2, 2]])
        #expect(ring.drain { _, _ in Issue.record("drained twice") } == 0)
    }

    @Test func aFullRingDropsAndCountsAndATooLongPacketIsRefused() {
        let ring = RelayRing(capacity: 2, slotSize: 64)
        let small: [UInt8] = [1, 2, 3]
        let results = (0..<3).map { _ in
            small.withUnsafeBytes { ring.push(room: RoomHandle(rawValue: 1), source: TransportID(1), kind: .rtp, packet: $0) }
        }
        #expect(results == [true, true, false])
        let long = [UInt8](repeating: 0, count: ring.maxPacketLength + 1)
        ring.drain { _, _ in }
        #expect(!long.withUnsafeBytes { ring.push(room: RoomHandle(rawValue: 1), source: TransportID(1), kind: .rtp, packet: $0) })
        #expect(ring.dropped == 2)
        #expect(ring.pushed == 2)
        // Freed slots take packets again.
        #expect(small.withUnsafeBytes { ring.push(room: RoomHandle(rawValue: 1), source: TransportID(1), kind: .rtp, packet: $0) })
    }

    /// One producer thread, one consumer thread: every packet arrives once,
    /// in order, intact, or was counted as dropped.
    @Test func twoThreadsLoseNothingTheyDoNotCount() async {
        let ring = RelayRing(capacity: 64, slotSize: 128)
        let total = 200_000
        let done = Atomic<Bool>(false)
        let producer = Thread {
            var bytes = [UInt8](repeating: 0, count: 100)
            for n in 0..<total {
                bytes.withUnsafeMutableBytes { buffer in
                    buffer.storeBytes(of: UInt32(n), toByteOffset: 0, as: UInt32.self)
                    buffer.storeBytes(of: UInt32(n) &* 2_654_435_761, toByteOffset: 96, as: UInt32.self)
                }
                while !bytes.withUnsafeBytes({
                    ring.push(room: RoomHandle(rawValue: 1), source: TransportID(UInt32(n)), kind: .rtp, packet: $0)
                }) {}
            }
            done.store(true, ordering: .releasing)
        }
        producer.start()
        var expected = 0
        var corrupt = 0
        while true {
            let finished = done.load(ordering: .acquiring)
            ring.drain { header, packet in
                let n = packet.load(fromByteOffset: 0, as: UInt32.self)
                let check = packet.load(fromByteOffset: 96, as: UInt32.self)
                if Int(n) != expected || header.source.rawValue != n || check != n &* 2_654_435_761 || header.length != 100 {
                    corrupt += 1
                }
                expected = Int(n) + 1
            }
            if finished && ring.waiting == 0 { break }
        }
        #expect(corrupt == 0)
        #expect(expected == total)
        // The producer retried every full-ring refusal, so pushes = total.
        #expect(ring.pushed == UInt64(total))
    }
}
