import Testing
@testable import WebRTC

/// The pieces under SRTPContext's per-SSRC state: the 1024-packet replay
/// window, RFC 3711's index estimation, and the bounded stream table.
@Suite struct SRTPReplayWindowTests {
    @Test func acceptsNewRefusesRepeatsAndTooOld() {
        var window = SRTPReplayWindow()
        #expect(window.check(5000) == .new)
        window.record(5000)
        #expect(window.check(5000) == .replayed)
        #expect(window.check(4999) == .new)  // late, inside the window
        window.record(4999)
        #expect(window.check(4999) == .replayed)
        #expect(window.check(5000 - 1023) == .new)
        #expect(window.check(5000 - 1024) == .tooOld)
        // A jump forward: what the skipped slots held is forgotten, not inherited.
        window.record(5000 + 1500)
        #expect(window.check(5000) == .tooOld)
        #expect(window.check(5000 + 1500 - 1023) == .new)
        window.record(5000 + 1501)
        #expect(window.check(5000 + 1500) == .replayed)
        #expect(window.check(5000 + 1499) == .new)
    }

    @Test func slotsReusedAfterTheRingTurnsStartClear() {
        var window = SRTPReplayWindow()
        for index in UInt64(0)..<3000 where index % 3 != 1 { window.record(index) }
        for index in UInt64(3000 - 1023)..<3000 {
            #expect(window.check(index) == (index % 3 == 1 ? .new : .replayed), "index \(index)")
        }
    }

    @Test func indexEstimationFollowsRFC3711AppendixA() {
        // First packet: ROC 0 whatever its sequence number.
        #expect(SRTPPacketIndex.estimate(sequence: 65_000, highest: nil) == 65_000)
        // Wrap forward: 65535 -> 0 moves ROC to 1.
        #expect(SRTPPacketIndex.estimate(sequence: 2, highest: 65_530) == 65_536 + 2)
        // A late packet from before the wrap keeps the old ROC.
        let afterWrap: UInt64 = 65_536 + 10
        #expect(SRTPPacketIndex.estimate(sequence: 65_520, highest: afterWrap) == 65_520)
        #expect(SRTPPacketIndex.estimate(sequence: 20, highest: afterWrap) == 65_536 + 20)
        // ROC 0, a sequence number far above: no ROC -1, stays 0.
        #expect(SRTPPacketIndex.estimate(sequence: 60_000, highest: 100) == 60_000)
        // Several wraps in.
        let roc5 = UInt64(5) << 16
        #expect(SRTPPacketIndex.estimate(sequence: 100, highest: roc5 | 65_000) == UInt64(6) << 16 | 100)
        #expect(SRTPPacketIndex.estimate(sequence: 65_000, highest: roc5 | 100) == UInt64(4) << 16 | 65_000)
        #expect(SRTPPacketIndex.estimate(sequence: 40_000, highest: roc5 | 30_000) == roc5 | 40_000)
    }

    @Test func streamTableEvictsTheLeastRecentlyUsedAtItsLimit() {
        var table = SRTPStreamTable<Int>(initialCapacity: 2, limit: 4)
        for ssrc in UInt32(1)...4 { _ = table.insert(ssrc, Int(ssrc) * 10) }
        #expect(table.capacity == 4 && table.count == 4)
        _ = table.slot(of: 1)  // 1 is now more recent than 2
        _ = table.insert(5, 50)  // evicts 2
        #expect(table.count == 4)
        #expect(table.slot(of: 2) == nil)
        for ssrc: UInt32 in [1, 3, 4, 5] {
            let slot = table.slot(of: ssrc)
            #expect(slot.map { table.entry(at: $0).pointee.state } == Int(ssrc) * 10)
        }
    }
}
