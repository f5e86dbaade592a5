import Packets
import SFU
import Testing

/// The per-connection pacer on a virtual clock: its rate over windows, the
/// order of classes, the burst allowance, the bounded queue and its figures.
@Suite struct PacerTests {
    /// Drains `pacer` from `start` until empty or `until`, stepping the
    /// clock to each `nextSendTime`; returns what left, with its time.
    func drain(_ pacer: inout Pacer, from start: MediaTime, until end: MediaTime)
        -> [(at: MediaTime, output: Pacer.Output)]
    {
        var out: [(at: MediaTime, output: Pacer.Output)] = []
        var now = start
        while let next = pacer.nextSendTime(now: now), next <= end {
            now = next
            var any = false
            while let output = pacer.dequeue(now: now) {
                out.append((now, output))
                any = true
            }
            #expect(any, "nextSendTime \(now) but nothing to dequeue")
            if !any { break }
        }
        return out
    }

    func sentBytes(_ outputs: [(at: MediaTime, output: Pacer.Output)], from: MediaTime, to: MediaTime) -> Int {
        outputs.reduce(0) { total, entry in
            guard case .send(let packet) = entry.output, entry.at >= from, entry.at < to else { return total }
            return total + packet.size
        }
    }

    @Test func theRateIsRespectedOverEveryWindow() {
        var pacer = Pacer()
        pacer.setRate(bitsPerSecond: 400_000)
        #expect(pacer.pacingRate == 1_000_000)  // 2.5 x the target
        // 150 packets of 10,000 bits: 1.5 s at 1 Mbit/s, all at once (a burst).
        let start = MediaTime.milliseconds(1_000)
        for handle in 0..<150 {
            do {
                let result = pacer.enqueue(UInt32(handle), size: 1_250, class: .video, now: start)
                #expect(result)
            }
        }
        let outputs = drain(&pacer, from: start, until: start.adding(milliseconds: 5_000))
        #expect(outputs.count == 150)
        #expect(pacer.queuedPackets == 0)
        // Every 100 ms window carries 100,000 bits (12,500 bytes), give or
        // take the burst (625 bytes) and one packet of debt.
        for window in 0..<14 {
            let from = start.adding(milliseconds: UInt64(window) * 100)
            let bytes = sentBytes(outputs, from: from, to: from.adding(milliseconds: 100))
            #expect(bytes <= 12_500 + 625 + 1_250, "window \(window): \(bytes) bytes")
            #expect(bytes >= 12_500 - 1_250, "window \(window): \(bytes) bytes")
        }
        // The last packet leaves after 1.5 s of data minus the burst's head start.
        if let last = outputs.last {
            let elapsed = last.at.nanoseconds(since: start)
            #expect(elapsed >= 1_480_000_000 && elapsed <= 1_500_000_000, "\(elapsed) ns")
        }
        #expect(pacer.counters.sentBytes == 150 * 1_250)
    }

    @Test func theMinimumRateHoldsForALowTarget() {
        var pacer = Pacer(configuration: .init(minimumRate: 300_000))
        pacer.setRate(bitsPerSecond: 50_000)
        #expect(pacer.pacingRate == 300_000)
        pacer.setRate(bitsPerSecond: 2_000_000)
        #expect(pacer.pacingRate == 5_000_000)
    }

    @Test func classesLeaveAudioThenRetransmissionsThenVideoThenPadding() {
        var pacer = Pacer()
        pacer.setRate(bitsPerSecond: 1_000_000)
        let now = MediaTime.milliseconds(10)
        // Enqueued in the reverse order of priority, two of each.
        for (handle, pacingClass) in [(1, PacingClass.padding), (2, .video), (3, .retransmission), (4, .audio)] {
            do {
                let result = pacer.enqueue(UInt32(handle), size: 100, class: pacingClass, now: now)
                #expect(result)
            }
            do {
                let result = pacer.enqueue(UInt32(handle + 10), size: 100, class: pacingClass, now: now)
                #expect(result)
            }
        }
        let outputs = drain(&pacer, from: now, until: now.adding(milliseconds: 1_000))
        let handles = outputs.compactMap { entry -> UInt32? in
            if case .send(let packet) = entry.output { return packet.handle }
            return nil
        }
        #expect(handles == [4, 14, 3, 13, 2, 12, 1, 11])
    }

    @Test func audioIsNotHeldForTheBudgetButIsChargedToIt() {
        var pacer = Pacer()
        pacer.setRate(bitsPerSecond: 400_000)  // 1 Mbit/s: a 1,250-byte packet every 10 ms
        let now = MediaTime.milliseconds(0)
        for handle in 0..<3 { _ = pacer.enqueue(UInt32(handle), size: 1_250, class: .video, now: now) }
        do {
            let result = pacer.dequeue(now: now)
            #expect(result == .send(.init(handle: 0, size: 1_250, pacingClass: .video, enqueued: now)))
        }
        do {
            let result = pacer.dequeue(now: now)
            #expect(result == nil)  // the budget is spent
        }
        _ = pacer.enqueue(100, size: 125, class: .audio, now: now)
        #expect(pacer.nextSendTime(now: now) == now)
        do {
            let result = pacer.dequeue(now: now)
            #expect(result == .send(.init(handle: 100, size: 125, pacingClass: .audio, enqueued: now)))
        }
        // The audio's 1,000 bits pushed the next video back by 1 ms:
        // 625 - 1,250 - 125 = -750 bytes, 6 ms at 1 Mbit/s.
        #expect(pacer.nextSendTime(now: now) == now.adding(milliseconds: 6))
    }

    @Test func anIdleBudgetSavesUpOnlyTheBurst() {
        var pacer = Pacer()
        pacer.setRate(bitsPerSecond: 400_000)  // 1 Mbit/s: 5 ms is 625 bytes
        let start = MediaTime.milliseconds(0)
        // Idle for a second, then 20 packets of 100 bytes at once.
        _ = pacer.dequeue(now: start)
        let later = start.adding(milliseconds: 1_000)
        for handle in 0..<20 { _ = pacer.enqueue(UInt32(handle), size: 100, class: .video, now: later) }
        var atOnce = 0
        while pacer.dequeue(now: later) != nil { atOnce += 1 }
        // Credit 625 spends on packets while not negative: 7 of them, not
        // the 125,000 bytes a second of idling would have saved.
        #expect(atOnce == 7)
        #expect(pacer.nextSendTime(now: later) == later.adding(nanoseconds: 600_000))
    }

    @Test func aProbeDrainsAtItsOwnRate() {
        var pacer = Pacer()
        pacer.setRate(bitsPerSecond: 400_000)
        let now = MediaTime.milliseconds(0)
        pacer.setProbe(bitsPerSecond: 4_000_000)
        #expect(pacer.drainRate == 4_000_000)
        for handle in 0..<10 { _ = pacer.enqueue(UInt32(handle), size: 1_000, class: .padding, now: now) }
        let outputs = drain(&pacer, from: now, until: now.adding(milliseconds: 1_000))
        // The last leaves once the 9,000 bytes before it, less the burst's
        // 2,500, have drained at 4 Mbit/s: 13 ms (52 ms at the pacing rate).
        if let last = outputs.last { #expect(last.at.nanoseconds(since: now) == 13_000_000) }
        pacer.setProbe(bitsPerSecond: nil)
        #expect(pacer.drainRate == 1_000_000)
    }

    @Test func aQueueOverTwoSecondsDropsTheOldestVideoNotAudio() {
        var pacer = Pacer(configuration: .init(minimumRate: 250_000))
        pacer.setRate(bitsPerSecond: 0)  // paced at the minimum, 250 kbit/s
        let now = MediaTime.milliseconds(0)
        // 100 video packets of 10,000 bits: 4 s of data at 250 kbit/s.
        for handle in 0..<100 {
            let result = pacer.enqueue(UInt32(handle), size: 1_250, class: .video, now: now)
            #expect(result)
        }
        for handle in 1_000..<1_010 {
            let result = pacer.enqueue(UInt32(handle), size: 125, class: .audio, now: now)
            #expect(result)
        }
        #expect(pacer.expectedQueueNanoseconds == 4_040_000_000)
        var dropped: [UInt32] = []
        var audio = 0
        while let output = pacer.dequeue(now: now) {
            switch output {
            case .drop(let packet):
                #expect(packet.pacingClass == .video)
                dropped.append(packet.handle)
            case .send(let packet):
                if packet.pacingClass == .audio { audio += 1 }
            }
        }
        // Down to 2 s (500,000 bits): 51 of the oldest video packets go
        // (the audio's 10,000 bits count too), every audio packet is sent.
        #expect(dropped == Array(0..<51))
        #expect(pacer.counters.droppedStale == 51)
        #expect(audio == 10)
        #expect(pacer.expectedQueueNanoseconds <= 2_000_000_000)
    }

    @Test func aLongQueueWithoutVideoWaitsForTheBudget() {
        var pacer = Pacer(configuration: .init(minimumRate: 250_000))
        let now = MediaTime.milliseconds(0)
        // 3 s of retransmissions: too long, but nothing the pacer may drop,
        // so it paces them instead of waking the caller for nothing.
        for handle in 0..<75 {
            let result = pacer.enqueue(UInt32(handle), size: 1_250, class: .retransmission, now: now)
            #expect(result)
        }
        var atOnce = 0
        while pacer.dequeue(now: now) != nil { atOnce += 1 }
        #expect(atOnce == 1)
        #expect(pacer.nextSendTime(now: now) == now.adding(milliseconds: 35))
        #expect(pacer.counters.droppedStale == 0)
    }

    @Test func aFullRingRefusesAndCounts() {
        var pacer = Pacer(configuration: .init(audioCapacity: 4))
        let now = MediaTime.milliseconds(0)
        for handle in 0..<4 {
            let result = pacer.enqueue(UInt32(handle), size: 100, class: .audio, now: now)
            #expect(result)
        }
        do {
            let result = pacer.enqueue(4, size: 100, class: .audio, now: now)
            #expect(!result)
        }
        #expect(pacer.counters.refused == 1)
        #expect(pacer.queuedPackets(of: .audio) == 4)
        // The other classes have rings of their own.
        do {
            let result = pacer.enqueue(5, size: 100, class: .video, now: now)
            #expect(result)
        }
        // Ring order survives wrapping around.
        _ = pacer.dequeue(now: now)
        _ = pacer.dequeue(now: now)
        do {
            let result = pacer.enqueue(6, size: 100, class: .audio, now: now)
            #expect(result)
        }
        var handles: [UInt32] = []
        while case .send(let packet) = pacer.dequeue(now: now), packet.pacingClass == .audio {
            handles.append(packet.handle)
        }
        #expect(handles == [2, 3, 6])
    }

    @Test func delayFigures() {
        var pacer = Pacer()
        pacer.setRate(bitsPerSecond: 400_000)  // 1 Mbit/s
        let start = MediaTime.milliseconds(0)
        for handle in 0..<10 { _ = pacer.enqueue(UInt32(handle), size: 1_250, class: .video, now: start) }
        #expect(pacer.queuedPackets == 10)
        #expect(pacer.queuedBytes == 12_500)
        // 100,000 bits at 1 Mbit/s.
        #expect(pacer.expectedQueueNanoseconds == 100_000_000)
        #expect(pacer.oldestQueueDelayNanoseconds(now: start.adding(milliseconds: 3)) == 3_000_000)
        let outputs = drain(&pacer, from: start, until: start.adding(milliseconds: 1_000))
        // The first at once (the burst), the second 5 ms later (the rest of
        // its debt), then one every 10 ms: the last after 85 ms.
        let times = outputs.map { $0.at.nanoseconds(since: start) / 1_000_000 }
        #expect(times == [0, 5, 15, 25, 35, 45, 55, 65, 75, 85])
        #expect(pacer.lastQueueDelayNanoseconds == 85_000_000)
        #expect(pacer.counters.maximumQueueDelayNanoseconds == 85_000_000)
        #expect(pacer.counters.totalQueueDelayNanoseconds == 405_000_000)
        #expect(pacer.expectedQueueNanoseconds == 0)
        #expect(pacer.oldestQueueDelayNanoseconds(now: start.adding(milliseconds: 100)) == 0)
        #expect(pacer.nextSendTime(now: start) == nil)
    }
}
