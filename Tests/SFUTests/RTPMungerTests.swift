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
}
