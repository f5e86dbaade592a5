import Packets
import Testing

@testable import SFU

/// Transport-cc feedback from a subscriber maps back to what the server
/// sent it (issue 13, item 1): every packet to a transport-cc subscriber
/// carries the next transport-wide number, and feedback gives each its send
/// time, size and arrival (or loss). REMB is kept.
@Suite struct DownlinkFeedbackTests {
    typealias R = Room

    @Test func feedbackJoinsEachPacketWithItsSendTimeAndSize() throws {
        var room = try Room()
        var sendTimes: [MediaTime] = []
        var sent: [ParsedRTP] = []
        for n in 0...4 {
            let at = room.now
            room.frame(UInt16(n), keyframe: n == 0)
            let mine = try room.sink.drain().rtp(to: R.bob)
            sent += mine
            sendTimes += mine.map { _ in at }
        }
        let numbers = sent.compactMap { $0.extensions[3].map { UInt16($0[0]) << 8 | UInt16($0[1]) } }
        #expect(numbers.count == 5)
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 &+ 1 }, "one number per packet, in order: \(numbers)")

        // bob got all but the 3rd. Deltas: 1, 2, 5 and 1 ms.
        let feedback = TransportCCFeedback(
            senderSSRC: SSRC(9), mediaSSRC: SSRC(0xB1), baseSequenceNumber: numbers[0], referenceTime: 100,
            feedbackPacketCount: 0, deltas: [4, 8, nil, 20, 4])
        room.router.receiveControl(feedback, from: R.bob, now: room.now, into: &room.sink)
        let reported = room.router.takePacketFeedback(subscriber: R.bob)
        #expect(reported.map { UInt16(truncatingIfNeeded: $0.sequence) } == numbers)
        #expect(reported.map(\.sendTime) == sendTimes)
        #expect(reported.allSatisfy { $0.size > 12 })
        let base = Int64(100) * 64_000_000
        #expect(reported.map(\.arrival) == [base + 1_000_000, base + 3_000_000, nil, base + 8_000_000, base + 9_000_000])
        #expect(room.router.feedbackCounts(subscriber: R.bob)! == (received: 4, lost: 1, unknown: 0))
        #expect(room.router.takePacketFeedback(subscriber: R.bob).isEmpty, "taken once")

        // A report about numbers never sent finds nothing, and says so.
        let stray = TransportCCFeedback(
            senderSSRC: SSRC(9), mediaSSRC: SSRC(0xB1), baseSequenceNumber: numbers[4] &+ 100, referenceTime: 101,
            feedbackPacketCount: 1, deltas: [4])
        room.router.receiveControl(stray, from: R.bob, now: room.now, into: &room.sink)
        #expect(room.router.takePacketFeedback(subscriber: R.bob).isEmpty)
        #expect(room.router.feedbackCounts(subscriber: R.bob)?.unknown == 1)
    }

    @Test func sizesAreThePacketsSent() throws {
        var room = try Room()
        room.frame(0, keyframe: true)
        let packets = room.sink.drain().filter { $0.transport == R.bob && $0.kind == .rtp }
        let value = try #require(packets.first?.rtp().extensions[3])
        let number = UInt16(value[0]) << 8 | UInt16(value[1])
        room.router.receiveControl(
            TransportCCFeedback(
                senderSSRC: SSRC(9), mediaSSRC: SSRC(0xB1), baseSequenceNumber: number, referenceTime: 0,
                feedbackPacketCount: 0, deltas: [4]),
            from: R.bob, now: room.now, into: &room.sink)
        #expect(room.router.takePacketFeedback(subscriber: R.bob).map(\.size) == packets.prefix(1).map(\.bytes.count))
    }

    /// The connection's downlink estimate runs on what it is sent and told:
    /// nothing before feedback, then the estimator's figure; a subscriber
    /// whose feedback says most of it is lost gets a lower one.
    @Test func feedbackDrivesTheDownlinkEstimate() throws {
        var room = try Room()
        #expect(room.router.downlinkEstimate(subscriber: R.bob) == nil)
        var lossy: UInt64 = 0
        for round in 0..<40 {
            var numbers: [UInt16] = []
            for n in 0..<5 {
                room.frame(UInt16(round * 5 + n), keyframe: round == 0 && n == 0)
                numbers += try room.sink.drain().rtp(to: R.bob).compactMap { $0.extensions[3].map { UInt16($0[0]) << 8 | UInt16($0[1]) } }
            }
            // Only every third packet arrives.
            let deltas: [Int16?] = numbers.indices.map { $0 % 3 == 0 ? 132 : nil }
            room.router.receiveControl(
                TransportCCFeedback(
                    senderSSRC: SSRC(9), mediaSSRC: SSRC(0xB1), baseSequenceNumber: numbers[0],
                    referenceTime: Int32(round), feedbackPacketCount: UInt8(round), deltas: deltas),
                from: R.bob, now: room.now, into: &room.sink)
            lossy = try #require(room.router.downlinkEstimate(subscriber: R.bob))
        }
        #expect(lossy < BandwidthEstimator.Configuration().startBitsPerSecond, "67% loss lowers the estimate: \(lossy)")
        #expect(room.router.downlinkEstimate(subscriber: R.alice) == nil, "alice sent no feedback")
    }

    @Test func theSubscribersREMBIsKept() throws {
        var room = try Room()
        #expect(room.router.remb(subscriber: R.bob) == nil)
        room.router.receiveControl(
            ReceiverEstimatedMaxBitrate(senderSSRC: SSRC(9), bitrate: 800_000, ssrcs: [SSRC(0xB1)]),
            from: R.bob, now: room.now, into: &room.sink)
        let remb = try #require(room.router.remb(subscriber: R.bob))
        #expect(remb.bitsPerSecond > 780_000 && remb.bitsPerSecond <= 800_000)
        #expect(remb.at == room.now)
        // Without transport-cc from it, REMB is the estimate.
        room.router.receiveControl(
            ReceiverEstimatedMaxBitrate(senderSSRC: SSRC(9), bitrate: 800_000, ssrcs: [SSRC(0xA1)]),
            from: R.alice, now: room.now, into: &room.sink)
        let estimate = try #require(room.router.downlinkEstimate(subscriber: R.alice))
        #expect(estimate > 700_000 && estimate <= 800_000, "\(estimate)")
    }

    @Test func theSendHistoryUnwrapsAndForgets() {
        var history = SendHistory()
        for n in 0..<70_000 { history.record(size: n % 1500, at: MediaTime(nanoseconds: UInt64(n))) }
        let newest = history.next - 1
        #expect(history.unwrap(UInt16(truncatingIfNeeded: newest)) == newest)
        #expect(history.unwrap(UInt16(truncatingIfNeeded: newest - 10)) == newest - 10)
        #expect(history.lookup(newest - 10)?.sendTime == MediaTime(nanoseconds: newest - 11))
        #expect(history.lookup(newest - UInt64(SendHistory.capacity)) == nil, "older than the ring")
        #expect(history.lookup(newest + 1) == nil, "not sent yet")
    }
}
