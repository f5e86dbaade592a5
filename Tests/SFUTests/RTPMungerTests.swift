import Packets
import Testing
import WebRTC
@testable import SFU

/// The pure decision part of a DownTrack (STYLE.md habit 6).
@Suite struct RTPMungerTests {
    func forwarded(_ decision: ForwardDecision) throws -> ForwardParameters {
        guard case .forward(let parameters) = decision else {
            Issue.record("expected forward, got \(decision)")
            throw CancellationError()
        }
        return parameters
    }

    @Test func videoWaitsForKeyframeThenMapsFromTheInitialNumber() throws {
        var munger = RTPMunger(clockRate: 90_000, startsOnKeyframe: true, initialSequenceNumber: 65_535)
        let t0 = MediaTime.milliseconds(1000)
        #expect(munger.translate(ForwardInput(sequence: 70_000, timestamp: 5000), now: t0) == .drop(.waitingForKeyframe))
        let first = try forwarded(
            munger.translate(ForwardInput(sequence: 70_001, timestamp: 8000, isKeyframe: true, pictureID: 900), now: t0))
        #expect(first.sequenceNumber == 65_535)
        #expect(first.timestamp == 8000)
        #expect(first.pictureID == 900)
        #expect(first.isResync)
        let next = try forwarded(munger.translate(ForwardInput(sequence: 70_002, timestamp: 11_000, pictureID: 901), now: t0))
        #expect(next.sequenceNumber == 0)  // wraps
        #expect(next.extendedSequenceNumber == first.extendedSequenceNumber + 1)
        // Before the mapping's start: dropped; a late one inside it keeps its place.
        #expect(munger.translate(ForwardInput(sequence: 70_000, timestamp: 5000), now: t0) == .drop(.tooOld))
        _ = munger.translate(ForwardInput(sequence: 70_005, timestamp: 20_000), now: t0)
        let late = try forwarded(munger.translate(ForwardInput(sequence: 70_004, timestamp: 17_000), now: t0))
        #expect(late.sequenceNumber == 2)
        #expect(munger.lastSequence & 0xFFFF == 3)
    }

    @Test func sequenceContiguousAndTimestampAdvancedAcrossAPause() throws {
        var munger = RTPMunger(clockRate: 90_000, startsOnKeyframe: true, initialSequenceNumber: 10)
        var now = MediaTime.milliseconds(0)
        for i in 0..<5 as Range<UInt64> {
            _ = try forwarded(
                munger.translate(
                    ForwardInput(sequence: 1000 + i, timestamp: UInt32(i) * 3000, isKeyframe: i == 0,
                                 pictureID: UInt16(i)), now: now))
            now = now.adding(milliseconds: 33)
        }
        // Last sent: seq 14, ts 12000, picture 4, at 132 ms.
        munger.pause()
        #expect(munger.translate(ForwardInput(sequence: 1005, timestamp: 15_000), now: now) == .drop(.paused))
        munger.resume()
        now = MediaTime.milliseconds(2132)  // 2 s after the last packet
        #expect(
            munger.translate(ForwardInput(sequence: 1070, timestamp: 500_000, pictureID: 70), now: now)
                == .drop(.waitingForKeyframe))
        let resumed = try forwarded(
            munger.translate(
                ForwardInput(sequence: 1071, timestamp: 503_000, isKeyframe: true, pictureID: 71), now: now))
        #expect(resumed.sequenceNumber == 15)
        #expect(resumed.timestamp == 12_000 + 180_000)
        #expect(resumed.pictureID == 5)
        let after = try forwarded(munger.translate(ForwardInput(sequence: 1072, timestamp: 506_000, pictureID: 72), now: now))
        #expect(after.sequenceNumber == 16)
        #expect(after.timestamp == 12_000 + 183_000)
        #expect(after.pictureID == 6)
        // NACK reverse mapping: only numbers of the current mapping.
        #expect(munger.inputSequence(forOutput: 16) == 1072)
        #expect(munger.inputSequence(forOutput: 15) == 1071)
        #expect(munger.inputSequence(forOutput: 14) == nil)
        #expect(munger.inputSequence(forOutput: 17) == nil)
    }

    @Test func audioResumesOnAnyPacketAndANewEpochResyncs() throws {
        var munger = RTPMunger(clockRate: 48_000, startsOnKeyframe: false, initialSequenceNumber: 0)
        let a = try forwarded(munger.translate(ForwardInput(sequence: 500, timestamp: 960), now: .milliseconds(0)))
        #expect(a.sequenceNumber == 0 && a.timestamp == 960)
        // The publisher restarted: new epoch, numbering jumps, timestamps unrelated.
        let b = try forwarded(
            munger.translate(ForwardInput(sequence: 9000, timestamp: 123_456, epoch: 1), now: .milliseconds(500)))
        #expect(b.sequenceNumber == 1)
        #expect(b.timestamp == 960 + 24_000)
        #expect(b.isResync)
        let c = try forwarded(
            munger.translate(ForwardInput(sequence: 9001, timestamp: 124_416, epoch: 1), now: .milliseconds(520)))
        #expect(c.sequenceNumber == 2 && c.timestamp == 960 + 24_000 + 960)
        #expect(!c.isResync)
    }

    @Test func skippedPacketsCloseUpAndOlderSegmentsStillMap() throws {
        var munger = RTPMunger(clockRate: 90_000, startsOnKeyframe: true, initialSequenceNumber: 100)
        let now = MediaTime.milliseconds(0)
        func input(_ sequence: UInt64, picture: UInt16) -> ForwardInput {
            ForwardInput(sequence: sequence, timestamp: UInt32(sequence) * 10, isKeyframe: sequence == 10, pictureID: picture)
        }
        // 10, 11 go; 12 is lost; 13 and 14 (one picture) are skipped; 15 goes.
        #expect(try forwarded(munger.translate(input(10, picture: 500), now: now)).sequenceNumber == 100)
        #expect(try forwarded(munger.translate(input(11, picture: 501), now: now)).sequenceNumber == 101)
        munger.skip(input(13, picture: 503))
        munger.skip(input(14, picture: 503))
        let next = try forwarded(munger.translate(input(15, picture: 504), now: now))
        #expect(next.sequenceNumber == 103)  // 102 stays the lost packet's
        #expect(next.pictureID == 503)  // one picture skipped: one less
        #expect(munger.skipped == 2)
        // The lost packet arrives late: it takes the place kept for it.
        let late = try forwarded(munger.translate(input(12, picture: 502), now: now))
        #expect(late.sequenceNumber == 102 && late.pictureID == 502)
        // NACKs map back through the segment each number was sent in.
        #expect(munger.inputSequence(forOutput: 101) == 11)
        #expect(munger.inputSequence(forOutput: 102) == 12)
        #expect(munger.inputSequence(forOutput: 103) == 15)
        #expect(munger.parameters(for: input(11, picture: 501)).sequenceNumber == 101)
        // A skip out of order cannot close up: nothing changes.
        munger.skip(input(14, picture: 503))
        #expect(try forwarded(munger.translate(input(16, picture: 505), now: now)).sequenceNumber == 104)
    }
}
