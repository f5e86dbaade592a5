import Testing
import VroomTesting

/// The relay's bottleneck (`--rate-kbps`, `--queue-ms`) on a virtual clock.
@Suite struct BottleneckModelTests {
    /// Offers `kbit`/s of `length`-byte datagrams for `seconds`; the
    /// departure times of those admitted.
    func offer(_ model: inout BottleneckModel, kbit: Int, length: Int, seconds: Int) -> [UInt64] {
        let interval = UInt64(length) * 8 * 1_000_000 / UInt64(kbit)
        var departures: [UInt64] = []
        var now: UInt64 = 0
        while now < UInt64(seconds) * 1_000_000_000 {
            if let departure = model.admit(length: length, now: now) {
                #expect(departure > now)
                departures.append(departure)
            }
            now += interval
        }
        return departures
    }

    @Test func twiceTheRateOfferedLeavesAtTheRateAndTheRestIsDropped() {
        var model = BottleneckModel(kilobitsPerSecond: 500, queueMilliseconds: 100)
        // 1,000 kbit/s of 1,000-byte datagrams (125 a second) for 10 s.
        let departures = offer(&model, kbit: 1_000, length: 1_000, seconds: 10)
        #expect(model.dropped + departures.count == 1_250)
        // Every second after the first (queue filling) carries 500 kbit:
        // 62 or 63 datagrams of 8,000 bits.
        for second in 1..<10 {
            let start = UInt64(second) * 1_000_000_000
            let count = departures.filter { $0 >= start && $0 < start + 1_000_000_000 }.count
            #expect((62...63).contains(count), "second \(second): \(count)")
        }
        // Departures are spaced by at least one datagram's time at the rate (16 ms).
        for (earlier, later) in zip(departures, departures.dropFirst()) {
            #expect(later - earlier >= 16_000_000)
        }
        // About half is dropped.
        #expect((600...640).contains(model.dropped), "\(model.dropped)")
    }

    @Test func theQueueHoldsItsMillisecondsAndNoMore() {
        var model = BottleneckModel(kilobitsPerSecond: 800, queueMilliseconds: 100)
        // A burst of 50 datagrams of 1,000 bytes (10 ms each at 800 kbit/s)
        // at once: the first goes at once, 10 more wait up to 100 ms.
        var admitted: [UInt64] = []
        for _ in 0..<50 {
            if let departure = model.admit(length: 1_000, now: 0) { admitted.append(departure) }
        }
        #expect(admitted.count == 11)
        #expect(model.dropped == 39)
        #expect(admitted.last == 110_000_000)
        #expect(model.backlogNanoseconds(now: 0) == 110_000_000)
        // Once it has drained, the link takes datagrams again.
        #expect(model.admit(length: 1_000, now: 110_000_000) == 120_000_000)
        #expect(model.dropped == 39)
    }

    @Test func aNewRateAppliesToTheNextDatagram() {
        var model = BottleneckModel(kilobitsPerSecond: 1_000, queueMilliseconds: 200)
        #expect(model.admit(length: 1_250, now: 0) == 10_000_000)
        model.set(kilobitsPerSecond: 250, queueMilliseconds: 200)
        // 10,000 bits at 250 kbit/s: 40 ms after the first has left.
        #expect(model.admit(length: 1_250, now: 0) == 50_000_000)
        #expect(model.bitsPerSecond == 250_000)
    }
}
