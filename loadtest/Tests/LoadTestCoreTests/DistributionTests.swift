import Testing

@testable import LoadTestCore

@Suite struct DistributionTests {
    @Test func percentilesOfKnownSamples() throws {
        // 1...1000 ms: p50 is 500 ms, p99 990 ms (HdrHistogram: 3 significant digits).
        let d = Distribution(milliseconds: (1...1000).map(Double.init))
        #expect(d.count == 1000)
        let p50 = try #require(d.p50)
        let p99 = try #require(d.p99)
        #expect(abs(p50 - 500) <= 0.5)
        #expect(abs(p99 - 990) <= 1)
        #expect(abs(try #require(d.max) - 1000) <= 1)
        #expect(abs(try #require(d.mean) - 500.5) <= 0.5)
    }

    @Test func subMillisecondAndSkippedSamples() {
        var recorder = Distribution.Recorder()
        recorder.record(milliseconds: [0.25, 0.25, 0.25, -3, .nan, .infinity])
        #expect(recorder.skipped == 3)
        let d = recorder.distribution
        #expect(d.count == 3)
        #expect(d.p50 == 0.25)
        #expect(Distribution(milliseconds: []) == Distribution())
    }
}
