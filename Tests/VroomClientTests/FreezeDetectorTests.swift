import Testing

@testable import VroomClient

/// WebRTC's freeze: a gap of at least max(3 x mean, mean + 150 ms).
@Suite struct FreezeDetectorTests {
    /// Frames at `gaps` (ms) after a first one.
    static func detector(_ gaps: [Int]) -> FreezeDetector {
        var detector = FreezeDetector()
        var time = ContinuousClock.now
        detector.frame(at: time)
        for gap in gaps {
            time += .milliseconds(gap)
            detector.frame(at: time)
        }
        return detector
    }

    @Test func aGapPastTheThresholdIsAFreezeAndDoesNotRaiseTheMean() {
        // 30 fps: mean 33 ms, threshold max(100, 183) = 183 ms.
        let steady = Array(repeating: 33, count: 10)
        #expect(Self.detector(steady + [180] + steady).freezes == 0)
        let frozen = Self.detector(steady + [400] + steady + [400])
        #expect(frozen.freezes == 2, "the first freeze did not enter the mean, so the second is one too")
        #expect(frozen.totalFreezeDuration == .milliseconds(800))
        // 5 fps: mean 200 ms, threshold max(600, 350) = 600 ms.
        let slow = Array(repeating: 200, count: 10)
        #expect(Self.detector(slow + [550] + slow).freezes == 0)
        #expect(Self.detector(slow + [650]).freezes == 1)
        // Fewer than 5 gaps: nothing to compare with yet.
        #expect(Self.detector([33, 33, 33, 33, 2000]).freezes == 0)
    }
}
