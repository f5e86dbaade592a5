import Packets
import Testing
@testable import SFU

/// VP8 temporal layers: whole frames only, up only where a decoder can follow.
@Suite struct TemporalLayerFilterTests {
    func input(_ timestamp: UInt32, tid: UInt8, sync: Bool = false, key: Bool = false) -> ForwardInput {
        ForwardInput(sequence: 0, timestamp: timestamp, isKeyframe: key, temporalLayer: tid, layerSync: sync)
    }

    @Test func downAtTheNextFrameUpOnlyAtLayerSyncOrKeyframe() {
        var filter = TemporalLayerFilter()
        do {
            let result = filter.admit(input(1000, tid: 2))
            #expect(result)
        }
        // The cap drops mid-frame: the frame's other packets still go.
        filter.cap = 0
        do {
            let result = filter.admit(input(1000, tid: 2))
            #expect(result)
        }
        #expect(filter.current == 3)
        // The next frame: down to 0.
        do {
            let result = filter.admit(input(2000, tid: 2))
            #expect(!result)
        }
        do {
            let result = filter.admit(input(2000, tid: 2))
            #expect(!result)  // the whole frame
        }
        #expect(filter.current == 0)
        do {
            let result = filter.admit(input(3000, tid: 0))
            #expect(result)
        }
        do {
            let result = filter.admit(input(4000, tid: 1))
            #expect(!result)
        }
        // Up to 2: a TID 1 frame without Y stays out, one with Y lets 1 in.
        filter.cap = 2
        do {
            let result = filter.admit(input(5000, tid: 1))
            #expect(!result)
        }
        do {
            let result = filter.admit(input(6000, tid: 2, sync: false))
            #expect(!result)
        }
        do {
            let result = filter.admit(input(7000, tid: 1, sync: true))
            #expect(result)
        }
        #expect(filter.current == 1)
        do {
            let result = filter.admit(input(8000, tid: 2))
            #expect(!result)
        }
        do {
            let result = filter.admit(input(9000, tid: 1))
            #expect(result)
        }
        // A keyframe goes straight to the cap.
        do {
            let result = filter.admit(input(10_000, tid: 0, key: true))
            #expect(result)
        }
        #expect(filter.current == 2)
        do {
            let result = filter.admit(input(11_000, tid: 2))
            #expect(result)
        }
        // A late packet of an older frame is judged by its own TID.
        filter.cap = 0
        do {
            let result = filter.admit(input(12_000, tid: 1))
            #expect(!result)
        }
        do {
            let result = filter.admit(input(9000, tid: 0))
            #expect(result)
        }
        do {
            let result = filter.admit(input(8000, tid: 2))
            #expect(!result)
        }
        // No TID: always.
        do {
            let result = filter.admit(ForwardInput(sequence: 0, timestamp: 13_000))
            #expect(result)
        }
    }

    @Test func anotherStreamStartsAFreshFrameAfterRestartOrAtAKeyframe() {
        var filter = TemporalLayerFilter(cap: 0)
        do {
            let admitted = filter.admit(input(4_000_000_000, tid: 0))
            #expect(admitted)
        }
        // Another layer's stream, timestamps "older": without a restart its
        // TID 2 frame would be judged packet by packet.
        filter.restart()
        do {
            let first = filter.admit(input(1000, tid: 2))
            let second = filter.admit(input(1000, tid: 0))  // same frame: same decision
            #expect(!first && !second)
        }
        // A keyframe is a new frame whatever its timestamp, and goes to the cap.
        filter.cap = 2
        do {
            let key = filter.admit(input(500, tid: 0, key: true))
            #expect(key && filter.current == 2)
        }
    }
}
