import Testing
@testable import SFU

/// The probe schedule's rules on their own, in virtual time.
private let ms: UInt64 = 1_000_000

@Suite struct ProbeControllerTests {
    /// A controller past its start clusters (sent, their results in), with
    /// the estimate at `estimate`.
    static func started(estimate: Double) -> ProbeController {
        var controller = ProbeController(maximum: 20_000_000)
        _ = controller.next(now: 0, start: 300_000, estimate: 300_000, applicationLimited: false)
        _ = controller.next(now: 0, start: 300_000, estimate: 300_000, applicationLimited: false)
        controller.onResult(100_000, estimate: estimate, now: 100 * ms)
        _ = controller.next(now: 2_000 * ms, start: 300_000, estimate: estimate, applicationLimited: false)
        return controller
    }

    /// bwe-cut's restore, as measured: the allocator wants 912 kbit/s, the
    /// retry probes 821 kbit/s (twice the 410 kbit/s estimate) and reads
    /// 878 kbit/s. Doubling that is not 20% past the estimate once capped
    /// at the want, but the estimate is still short of the want: one more
    /// cluster goes, past the want.
    @Test func aResultShortOfTheWantGoesOnPastIt() {
        var controller = Self.started(estimate: 410_000)
        controller.request(target: 912_000, estimate: 410_000, now: 3_000 * ms)
        let first = controller.next(now: 3_000 * ms, start: 300_000, estimate: 410_000, applicationLimited: false)
        #expect(first?.bitsPerSecond == 820_000)
        controller.onResult(878_000, estimate: 878_000, now: 3_100 * ms)
        let second = controller.next(now: 3_100 * ms, start: 300_000, estimate: 878_000, applicationLimited: false)
        #expect((second?.bitsPerSecond ?? 0) >= 912_000)
        // Read at the want or above: the search is over.
        controller.onResult(1_000_000, estimate: 1_000_000, now: 3_200 * ms)
        #expect(controller.next(now: 3_200 * ms, start: 300_000, estimate: 1_000_000, applicationLimited: false) == nil)
    }

    /// A link that carries less than the want, each probe reading a
    /// steady 860 kbit/s (over 70% of what it sent): the search ends after
    /// one cluster past the want, as rates only rise, by 10% at least.
    @Test func aSaturatedLinkEndsTheSearch() {
        var controller = Self.started(estimate: 800_000)
        controller.request(target: 1_000_000, estimate: 800_000, now: 3_000 * ms)
        var rates: [Double] = []
        var now = 3_000 * ms
        while let cluster = controller.next(now: now, start: 300_000, estimate: 800_000, applicationLimited: false) {
            rates.append(cluster.bitsPerSecond)
            now += 100 * ms
            controller.onResult(860_000, estimate: 860_000, now: now)
            if rates.count > 5 { break }
        }
        #expect(rates.count == 2)
    }

    /// Probes found nothing for a while (the link was cut): the retry
    /// interval grew to 4 s. One that finds headroom brings it back to 2 s,
    /// so the next want is probed for 2 s later.
    @Test func headroomFoundResetsTheRetryInterval() {
        var controller = Self.started(estimate: 200_000)
        var now = 3_000 * ms
        // Three retries that find nothing: 2 s, then 4 s, then 4 s apart.
        for _ in 0..<3 {
            controller.request(target: 900_000, estimate: 200_000, now: now)
            if controller.next(now: now, start: 300_000, estimate: 200_000, applicationLimited: false) != nil {
                controller.onResult(100_000, estimate: 200_000, now: now + 100 * ms)
            }
            now += 4_000 * ms
        }
        controller.request(target: 900_000, estimate: 200_000, now: now)
        #expect(controller.next(now: now, start: 300_000, estimate: 200_000, applicationLimited: false) != nil)
        // Read 250 kbit/s: headroom (25% up), but under 70% of the 400
        // sent, so the climb ends here.
        controller.onResult(250_000, estimate: 250_000, now: now + 100 * ms)
        #expect(controller.next(now: now + 100 * ms, start: 300_000, estimate: 250_000, applicationLimited: false) == nil)
        now += 2_100 * ms
        controller.request(target: 900_000, estimate: 250_000, now: now)
        #expect(controller.next(now: now, start: 300_000, estimate: 250_000, applicationLimited: false) != nil)
    }
}
