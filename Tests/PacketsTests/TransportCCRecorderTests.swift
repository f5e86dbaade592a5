import Packets
import Testing

/// The receiver side of transport-wide congestion control: arrivals in,
/// feedback out (draft-holmer-rmcat-transport-wide-cc-extensions-01).
/// The server's publisher connections and the SDK's subscriber connection
/// share this recorder; `RouterRTCPTests` covers it through the router.
@Suite struct TransportCCRecorderTests {
    /// Arrival times read back from a feedback: the reference time in
    /// 64 ms units, then each received packet's delta in 250 us units.
    static func arrivals(_ feedback: TransportCCFeedback) -> [UInt16: UInt64] {
        var time = Int64(feedback.referenceTime) * 64_000_000
        var out: [UInt16: UInt64] = [:]
        for (index, delta) in feedback.deltas.enumerated() {
            guard let delta else { continue }
            time += Int64(delta) * 250_000
            out[feedback.baseSequenceNumber &+ UInt16(index)] = UInt64(time)
        }
        return out
    }

    /// Through the 16-bit wrap, with losses and one packet out of order:
    /// each received number comes back at its arrival time (to 250 us),
    /// each lost one as not received, the feedback round-trips through
    /// its wire form, and the next one starts where this one ended.
    @Test func feedbackGivesEachArrivalThroughTheWrap() throws {
        let recorder = TransportCCRecorder()
        var expected: [UInt16: UInt64] = [:]
        var now = MediaTime.milliseconds(5_000)
        var order = (0..<30).map { UInt16(65_520) &+ UInt16($0) }
        order.swapAt(10, 11)  // 65530 arrives after 65531
        for sequence in order {
            now = now.adding(nanoseconds: 3_250_000)
            if sequence == 65_525 || sequence == 2 { continue }
            recorder.record(sequence, at: now)
            expected[sequence] = now.nanoseconds / 250_000 * 250_000
        }
        #expect(recorder.hasPending)
        let feedback = try #require(recorder.nextFeedback(senderSSRC: SSRC(7), mediaSSRC: SSRC(9)))
        #expect(feedback.baseSequenceNumber == 65_520)
        #expect(feedback.deltas.count == 30)
        #expect(feedback.feedbackPacketCount == 0)
        #expect(Self.arrivals(feedback) == expected)
        #expect(feedback.deltas[5] == nil && feedback.deltas[18] == nil)
        #expect(feedback.deltas[11]! < 0, "the reordered packet has a negative delta")

        // The wire form reads back the same.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 4)
        defer { buffer.deallocate() }
        let length = try feedback.write(to: buffer)
        let view = try TransportCCFeedbackView(validating: UnsafeRawBufferPointer(rebasing: buffer[0..<length]))
        #expect(TransportCCFeedback(view) == feedback)

        #expect(!recorder.hasPending)
        #expect(recorder.nextFeedback(senderSSRC: SSRC(7), mediaSSRC: SSRC(9)) == nil)
        recorder.record(10, at: now.adding(milliseconds: 40))  // already reported as lost
        #expect(!recorder.hasPending)
        recorder.record(20, at: now.adding(milliseconds: 45))
        let next = try #require(recorder.nextFeedback(senderSSRC: SSRC(7), mediaSSRC: SSRC(9)))
        #expect(next.baseSequenceNumber == 14)
        #expect(next.feedbackPacketCount == 1)
        #expect(next.deltas.count == 7 && next.deltas.prefix(6).allSatisfy { $0 == nil })
    }

    /// More than 500 packets pending: they come in feedbacks of 500, each
    /// of which fits one datagram. More than the ring's 1,024 pending: the
    /// oldest are overwritten and never reported.
    @Test func aBacklogIsSplitIntoFeedbacksThatFitADatagram() throws {
        let recorder = TransportCCRecorder()
        var now = MediaTime.milliseconds(1_000)
        for sequence in 0..<1_100 as Range<UInt16> {
            now = now.adding(nanoseconds: 70_000_000 * UInt64(sequence % 2))  // deltas that need two bytes
            recorder.record(sequence, at: now)
        }
        var feedbacks: [TransportCCFeedback] = []
        while let feedback = recorder.nextFeedback(senderSSRC: SSRC(1), mediaSSRC: SSRC(2)) { feedbacks.append(feedback) }
        #expect(feedbacks.map(\.baseSequenceNumber) == [76, 576, 1_076])
        #expect(feedbacks.map(\.deltas.count) == [500, 500, 24])
        #expect(feedbacks.allSatisfy { $0.encodedSize <= 1_180 })
    }

    /// Arrivals more than 8 s apart cannot share a feedback (a delta is
    /// 16 bits of 250 us): the feedback ends before the late one.
    @Test func aLongSilenceEndsTheFeedback() throws {
        let recorder = TransportCCRecorder()
        recorder.record(1, at: .milliseconds(1_000))
        recorder.record(2, at: .milliseconds(1_010))
        recorder.record(3, at: .milliseconds(10_000))
        let first = try #require(recorder.nextFeedback(senderSSRC: SSRC(1), mediaSSRC: SSRC(2)))
        #expect(first.baseSequenceNumber == 1 && first.deltas.count == 2)
        let second = try #require(recorder.nextFeedback(senderSSRC: SSRC(1), mediaSSRC: SSRC(2)))
        #expect(second.baseSequenceNumber == 3 && second.deltas.count == 1)
        #expect(Self.arrivals(second) == [3: 10_000_000_000])
    }
}
