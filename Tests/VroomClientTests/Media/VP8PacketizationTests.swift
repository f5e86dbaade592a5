import Packets
import Testing
import VroomTesting
import WebRTC

@testable import VroomClient

@Suite struct VP8PacketizationTests {
    static let maximumPayload = 1156

    func frame(size: Int, keyframe: Bool, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        return [keyframe ? 0x10 : 0x11] + (1..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    @Test func packetsCarryTheRFC7741DescriptorAndSplitEvenly() throws {
        var packetizer = VP8Packetizer(initialPictureID: 0x7FFE)
        let data = frame(size: 5000, keyframe: true, seed: 1)
        let payloads = packetizer.packetize(data, maximumPayloadSize: Self.maximumPayload)
        #expect(payloads.count == 5)  // 5000 / 1152 rounds up to 5
        #expect(payloads.allSatisfy { $0.count <= Self.maximumPayload })
        let sizes = payloads.map(\.count)
        #expect(sizes.max()! - sizes.min()! <= 1)
        for (index, payload) in payloads.enumerated() {
            try payload.withUnsafeBytes { bytes in
                let descriptor = try VP8PayloadDescriptor(validating: bytes)
                #expect(descriptor.startOfPartition == (index == 0))
                #expect(descriptor.partitionIndex == 0)
                #expect(descriptor.pictureID == 0x7FFE)
                #expect(descriptor.pictureIDIs15Bit)
                #expect(descriptor.isKeyframe == (index == 0))
            }
        }
        #expect(Array(payloads.map { $0.dropFirst(4) }.joined()) == data)
        // The picture ID wraps at 15 bits.
        let next = packetizer.packetize([0x11], maximumPayloadSize: Self.maximumPayload)
        let wrapped = packetizer.packetize([0x11], maximumPayloadSize: Self.maximumPayload)
        #expect(next[0][2...3] == [0xFF, 0xFF])
        #expect(wrapped[0][2...3] == [0x80, 0x00])
    }

    /// Frames split into packets, delivered shuffled with duplicates, come
    /// out whole and in order.
    @Test func assemblerRebuildsReorderedFramesInOrder() {
        var packetizer = VP8Packetizer(initialPictureID: 5)
        var packets: [(UInt16, UInt32, Bool, [UInt8])] = []
        var frames: [[UInt8]] = []
        var sequence: UInt16 = 65500  // wraps
        for index in 0..<20 {
            let data = frame(size: 200 + index * 250, keyframe: index == 0, seed: UInt64(index))
            frames.append(data)
            let payloads = packetizer.packetize(data, maximumPayloadSize: Self.maximumPayload)
            for (k, payload) in payloads.enumerated() {
                packets.append((sequence, UInt32(index) * 3000, k == payloads.count - 1, payload))
                sequence &+= 1
            }
        }
        var generator = SeededGenerator(seed: 7)
        // Swap neighbours at random and duplicate some: reorder within a few packets.
        var shuffled = packets
        for index in stride(from: 0, to: shuffled.count - 3, by: 2) where Bool.random(using: &generator) {
            shuffled.swapAt(index, index + 2)
        }
        shuffled += packets.prefix(5)
        var assembler = VP8FrameAssembler()
        var out: [RemoteVideoFrame] = []
        for (sequence, timestamp, marker, payload) in shuffled {
            out += payload.withUnsafeBytes {
                assembler.insert(sequenceNumber: sequence, timestamp: timestamp, marker: marker, payload: $0, now: .milliseconds(1))
            }
        }
        #expect(out.map(\.data) == frames)
        #expect(out.first?.isKeyframe == true)
        #expect(out.dropFirst().allSatisfy { !$0.isKeyframe && !$0.followsLoss })
        #expect(assembler.missingSequenceNumbers.isEmpty)
    }

    /// A lost packet holds frames back, is reported missing, and after
    /// `maximumWait` the assembler skips to the next complete frame,
    /// flagged `followsLoss`.
    @Test func assemblerSkipsAnUnrepairedGap() {
        var packetizer = VP8Packetizer(initialPictureID: 0)
        var assembler = VP8FrameAssembler()
        var sequence: UInt16 = 100
        var out: [RemoteVideoFrame] = []
        for index in 0..<4 {
            let payloads = packetizer.packetize(frame(size: 2000, keyframe: index == 0, seed: 9), maximumPayloadSize: Self.maximumPayload)
            for (k, payload) in payloads.enumerated() {
                defer { sequence &+= 1 }
                if index == 1 && k == 0 { continue }  // lose frame 1's first packet
                out += payload.withUnsafeBytes {
                    assembler.insert(
                        sequenceNumber: sequence, timestamp: UInt32(index) * 3000, marker: k == payloads.count - 1,
                        payload: $0, now: .milliseconds(10))
                }
            }
        }
        #expect(out.count == 1)
        #expect(assembler.missingSequenceNumbers == [102])
        #expect(assembler.poll(now: .milliseconds(100)).isEmpty)
        let released = assembler.poll(now: .milliseconds(500))
        #expect(released.count == 2)
        #expect(released.first?.followsLoss == true)
        #expect(released.last?.followsLoss == false)
        #expect(assembler.skips == 1)
        #expect(assembler.missingSequenceNumbers.isEmpty)
    }

    @Test func assemblerCountsMalformedPayloads() {
        var assembler = VP8FrameAssembler()
        let frames = [UInt8]([0x80]).withUnsafeBytes {  // X set, no extension byte
            assembler.insert(sequenceNumber: 1, timestamp: 0, marker: true, payload: $0, now: .milliseconds(1))
        }
        #expect(frames.isEmpty)
        #expect(assembler.malformedPackets == 1)
    }

    @Test func receptionStatisticsCountLossAndJitter() {
        var statistics = ReceptionStatistics(clockRate: 90000)
        var unwrapper = SequenceNumberUnwrapper()
        // 10 packets, 3000 ticks (33.3 ms) apart, one missing, arrivals with 0/10 ms alternating delay.
        for index in 0..<10 where index != 4 {
            let arrival = MediaTime.milliseconds(UInt64(index) * 100 / 3 + (index % 2 == 0 ? 0 : 10))
            statistics.record(
                extendedSequence: unwrapper.unwrap(UInt16(index)), timestamp: UInt32(index) * 3000,
                arrival: arrival.nanoseconds, retransmitted: false)
        }
        #expect(statistics.cumulativeLost == 1)
        #expect(statistics.jitterSeconds * 1000 > 2 && statistics.jitterSeconds * 1000 < 10)
        let report = statistics.takeReport(ssrc: SSRC(1), now: MediaTime.milliseconds(400).nanoseconds)
        #expect(report?.cumulativeLost == 1)
        #expect(report?.fractionLost == 25)  // 1/10 * 256
        #expect(report?.extendedHighestSequence == 9)
        // LSR/DLSR (RFC 3550 6.4.1) so the server can compute the RTT.
        statistics.recordSenderReport(ntpTimestamp: 0x1234_5678_9ABC_DEF0, arrival: MediaTime.milliseconds(500).nanoseconds)
        let next = statistics.takeReport(ssrc: SSRC(1), now: MediaTime.milliseconds(1000).nanoseconds)
        #expect(next?.lastSR == 0x5678_9ABC)
        #expect(next?.delaySinceLastSR == 32768)  // 0.5 s in 1/65536 s
        #expect(next?.fractionLost == 0)  // nothing new lost in this interval
    }
}
