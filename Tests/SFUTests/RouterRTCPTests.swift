import Packets
import Testing
import VroomTesting
import WebRTC
@testable import SFU

@Suite struct RouterRTCPTests {
    @Test func senderAndReceiverReportsCarryTheStreamsAndRTTComesBack() throws {
        var room = try Room()
        room.tick()  // starts the 1 s report clock at 10,000 ms
        room.frame(0, keyframe: true)
        for n in 1..<10 as Range<UInt16> { room.frame(n) }
        // The publisher's SR for its video: NTP 0x0000_1234_8000_0000, RTP 117,000.
        let publisherSR = SenderReport(
            ssrc: Room.videoSSRC, ntpTimestamp: 0x0000_1234_8000_0000, rtpTimestamp: 117_000, packetCount: 10,
            octetCount: 2000)
        room.router.receiveControl(publisherSR, from: Room.publisher, now: room.now, into: &room.sink)
        let srArrival = room.now
        _ = room.sink.drain()
        room.now = MediaTime.milliseconds(11_000)
        room.tick()
        let sent = room.sink.drain()

        let toPublisher = try sent.rtcp(to: Room.publisher)
        let rr = try #require(toPublisher.compactMap { if case .rr(let r) = $0 { r } else { nil } }.first)
        #expect(rr.ssrc == SSRC(1))
        let block = try #require(rr.reports.first { $0.ssrc == Room.videoSSRC })
        #expect(block.extendedHighestSequence == 1009)
        #expect(block.cumulativeLost == 0 && block.fractionLost == 0)
        #expect(block.lastSR == 0x1234_8000)
        // 11,000 - 10,330 ms = 0.67 s in 1/65536 s.
        #expect(block.delaySinceLastSR == UInt32(670 * 65536 / 1000))
        #expect(srArrival == MediaTime.milliseconds(10_330))

        let toAlice = try sent.rtcp(to: Room.alice)
        let sr = try #require(toAlice.compactMap { if case .sr(let r) = $0 { r } else { nil } }.first)
        #expect(sr.ssrc == SSRC(0xA1))
        #expect(sr.packetCount == 10)
        #expect(sr.octetCount == 10 * 205)
        #expect(sr.ntpTimestamp == 11 << 32)
        // The publisher's RTP time carried forward 670 ms, mapped (offset 0 here).
        #expect(sr.rtpTimestamp == 117_000 + 670 * 90)
        // Audio sent nothing yet: no SR for it.
        #expect(!toAlice.contains { if case .sr(let r) = $0 { r.ssrc == SSRC(0xA3) } else { false } })

        // Alice reports 50 ms later, having held the SR for 10 ms: RTT 40 ms.
        room.now = MediaTime.milliseconds(11_050)
        let report = ReceiverReport(
            ssrc: SSRC(9), reports: [
                ReceptionReport(
                    ssrc: SSRC(0xA1), fractionLost: 25, cumulativeLost: 3, extendedHighestSequence: 109, jitter: 450,
                    lastSR: UInt32(truncatingIfNeeded: (11 << 32) >> 16), delaySinceLastSR: 655)
            ])
        room.router.receiveControl(report, from: Room.alice, now: room.now, into: &room.sink)
        let stats = try #require(room.router.downTrackStats(track: Room.video, subscriber: Room.alice))
        #expect(stats.fractionLost == 25 && stats.lost == 3 && stats.jitter == 450)
        let rtt = try #require(stats.roundTripTime)
        #expect(abs(rtt - 0.040) < 0.001)
    }

    @Test func transportCCFeedbackDecodesToTheArrivalTimes() throws {
        var room = try Room(subscribe: false)
        room.tick()
        var arrivals: [UInt16: UInt64] = [:]  // transport seq -> ns
        var now = MediaTime.milliseconds(10_007)
        for seq in 1...40 as ClosedRange<UInt16> {
            now = now.adding(nanoseconds: seq % 3 == 0 ? 250_000 : 4_750_000)
            if seq == 5 || seq == 17 { continue }  // lost on the way
            let packet = Publish.opus(
                sequence: 100 + seq, timestamp: UInt32(seq) * 960, ssrc: Room.audioSSRC,
                extensions: [.init(id: 3, value: [UInt8(seq >> 8), UInt8(seq & 0xFF)])])
            room.router.receive(packet, from: Room.publisher, now: now, into: &room.sink)
            arrivals[seq] = now.nanoseconds
        }
        room.now = now.adding(milliseconds: 1)
        room.tick()
        let feedback = try room.sink.drain().rtcp(to: Room.publisher).compactMap {
            if case .twcc(let f) = $0 { f } else { nil }
        }
        #expect(feedback.count == 1)
        let fb = try #require(feedback.first)
        #expect(fb.baseSequenceNumber == 1)
        #expect(fb.deltas.count == 40)
        var time = Int64(fb.referenceTime) * 64_000_000
        for (index, delta) in fb.deltas.enumerated() {
            let seq = UInt16(index + 1)
            if let delta {
                time += Int64(delta) * 250_000
                #expect(UInt64(time) == arrivals[seq]!, "seq \(seq)")
            } else {
                #expect(arrivals[seq] == nil, "seq \(seq)")
            }
        }
        // Nothing new: no feedback at the next interval; then the next ones.
        room.now = room.now.adding(milliseconds: 50)
        room.tick()
        #expect(try room.sink.drain().rtcp(to: Room.publisher).isEmpty)
        let next = Publish.opus(
            sequence: 141, timestamp: 41 * 960, ssrc: Room.audioSSRC, extensions: [.init(id: 3, value: [0, 41])])
        room.router.receive(next, from: Room.publisher, now: room.now, into: &room.sink)
        room.now = room.now.adding(milliseconds: 50)
        room.tick()
        let second = try room.sink.drain().rtcp(to: Room.publisher).compactMap {
            if case .twcc(let f) = $0 { f } else { nil }
        }
        #expect(second.map(\.baseSequenceNumber) == [41])
        #expect(second.map(\.feedbackPacketCount) == [1])
    }

    @Test func lossAndJitterOfASeededLossySequence() throws {
        var room = try Room(subscribe: false)
        var random = SeededGenerator(seed: 42)
        var sent = 0
        var received = 0
        var highest: UInt16 = 0
        var first: Int?
        var last = 0
        // RFC 3550 A.8 in floating point, as an independent reference.
        var jitter = 0.0
        var lastTransit: Double?
        for i in 0..<500 {
            let seq = UInt16(truncatingIfNeeded: 65_300 &+ i)  // wraps through 65535
            let timestamp = UInt32(i) * 960
            sent += 1
            if Double.random(in: 0..<1, using: &random) < 0.1 { continue }
            let arrivalMicros = UInt64(20_000 * i) + UInt64.random(in: 0..<8000, using: &random) + 5_000_000
            let arrival = MediaTime(nanoseconds: arrivalMicros * 1000)
            room.router.receive(
                Publish.opus(sequence: seq, timestamp: timestamp, ssrc: Room.audioSSRC), from: Room.publisher,
                now: arrival, into: &room.sink)
            received += 1
            highest = seq
            if first == nil { first = i }
            last = i
            let transit = Double(arrivalMicros) * 48_000 / 1_000_000 - Double(timestamp)
            if let lastTransit { jitter += (abs(transit - lastTransit) - jitter) / 16 }
            lastTransit = transit
        }
        // A.3: expected from the first to the newest received.
        let expectedCount = last - first! + 1
        let lost = expectedCount - received
        var sink = CollectingSink()
        _ = room.router.tick(now: MediaTime.seconds(20), into: &sink)
        _ = room.router.tick(now: MediaTime.seconds(21), into: &sink)
        let rr = try sink.drain().rtcp(to: Room.publisher).compactMap { if case .rr(let r) = $0 { r } else { nil } }
        let block = try #require(rr.first?.reports.first { $0.ssrc == Room.audioSSRC })
        #expect(Int(block.cumulativeLost) == lost)
        #expect(block.extendedHighestSequence == 0x1_0000 | UInt32(highest))
        #expect(Int(block.fractionLost) == lost * 256 / expectedCount)
        #expect(abs(Double(block.jitter) - jitter) <= 2, "jitter \(block.jitter) vs reference \(jitter)")
        #expect(lost > 30 && lost < 70)
        let stats = try #require(room.router.receiverStats(track: Room.audio))
        #expect(stats.packets == UInt64(received))
        #expect(Int(stats.lost) == lost)
        #expect(sent == 500)
    }

    @Test func malformedAndRandomInputIsDroppedAndCountedNeverACrash() throws {
        var room = try Room()
        room.tick()
        var random = SeededGenerator(seed: 7)
        var buffer = [UInt8](repeating: 0, count: 1500)
        for round in 0..<3000 {
            let length = Int.random(in: 0...300, using: &random)
            for i in 0..<length { buffer[i] = UInt8.random(in: 0...255, using: &random) }
            if round % 3 == 1 {
                // Plausible RTP on a known SSRC with a random VP8 payload.
                buffer[0] = 0x80
                buffer[1] = 96
                withUnsafeBytes(of: Room.videoSSRC.rawValue.bigEndian) { ssrc in
                    for i in 0..<4 where 8 + i < buffer.count { buffer[8 + i] = ssrc[i] }
                }
            }
            let from = [Room.publisher, Room.alice, Room.bob, TransportID(99)][round % 4]
            buffer.withUnsafeMutableBytes { raw in
                room.router.receiveRTP(raw, length: max(length, 12), from: from, now: room.now, into: &room.sink)
                room.router.receiveRTCP(raw, length: length, from: from, now: room.now, into: &room.sink)
            }
            room.advance(ms: 1)
            if round % 50 == 0 { room.tick() }
        }
        // Lying lengths are refused, not trusted.
        buffer.withUnsafeMutableBytes { raw in
            room.router.receiveRTP(raw, length: 2000, from: Room.publisher, now: room.now, into: &room.sink)
            room.router.receiveRTCP(raw, length: -1, from: Room.publisher, now: room.now, into: &room.sink)
        }
        #expect(room.router.counters.dropped(.malformed) > 1000)
        #expect(room.router.counters.dropped(.unknownTransport) > 0)
    }
}
