import Foundation
import Testing
import VroomTesting

#if canImport(Glibc)
import Glibc
#endif

/// The seeded impairment relay: its decisions (sans-I/O, many datagrams, no
/// clock) and the relay itself over loopback sockets.
@Suite struct ImpairmentModelTests {
    @Test func dropRateIsWithinTolerance() {
        // 20,000 datagrams at 5%: mean 1,000, standard deviation about 31;
        // 130 (4 sigma) apart is a broken model, not bad luck.
        for seed: UInt64 in [1, 2, 42] {
            var model = ImpairmentModel(profile: .init(dropProbability: 0.05), seed: seed)
            let dropped = (0..<20_000).filter { _ in model.decide(length: 100).dropped }.count
            #expect(abs(dropped - 1_000) < 130, "seed \(seed): \(dropped) dropped")
            #expect(model.counters.dropped == dropped)
            #expect(model.counters.received == 20_000)
        }
    }

    @Test func theSameSeedGivesTheSameDecisions() {
        let profile = ImpairmentProfile(
            dropProbability: 0.1, delayMilliseconds: 50, jitterMilliseconds: 10, reorderProbability: 0.05,
            duplicateProbability: 0.05, corruptProbability: 0.05)
        func decisions(seed: UInt64) -> [ImpairmentDecision] {
            var model = ImpairmentModel(profile: profile, seed: seed)
            return (0..<2_000).map { model.decide(length: 40 + $0 % 1_000) }
        }
        #expect(decisions(seed: 7) == decisions(seed: 7))
        #expect(decisions(seed: 7) != decisions(seed: 8))
    }

    @Test func dropDecisionsDoNotDependOnTheOtherKnobs() {
        // Seven draws per datagram whatever the profile: a seed's losses
        // stay the same when only the delay changes.
        var plain = ImpairmentModel(profile: .init(dropProbability: 0.2), seed: 3)
        var delayed = ImpairmentModel(
            profile: .init(dropProbability: 0.2, delayMilliseconds: 80, jitterMilliseconds: 30, duplicateProbability: 0.5),
            seed: 3)
        for _ in 0..<1_000 {
            #expect(plain.decide(length: 10).dropped == delayed.decide(length: 10).dropped)
        }
    }

    @Test(arguments: ImpairmentProfile.JitterDistribution.allCases)
    func delayIsTheMeanPlusJitter(distribution: ImpairmentProfile.JitterDistribution) {
        var model = ImpairmentModel(
            profile: .init(delayMilliseconds: 50, jitterMilliseconds: 10, jitterDistribution: distribution), seed: 11)
        var delays: [Double] = []
        for _ in 0..<10_000 { delays.append(Double(model.decide(length: 10).delayNanoseconds) / 1e6) }
        let count = Double(delays.count)
        let mean: Double = delays.reduce(0, +) / count
        var squares: Double = 0
        for delay in delays { squares += (delay - mean) * (delay - mean) }
        let deviation: Double = (squares / count).squareRoot()
        #expect(abs(mean - 50) < 0.5)
        switch distribution {
        case .uniform:
            #expect(delays.allSatisfy { (40...60).contains($0) })
            // Uniform on +/- 10: standard deviation 10 / sqrt(3) = 5.77.
            #expect(abs(deviation - 5.77) < 0.3)
        case .normal:
            #expect(abs(deviation - 10) < 0.5)
            #expect(delays.allSatisfy { $0 >= 0 })
        }
    }

    @Test func duplicateAndCorruptFollowTheirProbabilities() {
        var model = ImpairmentModel(profile: .init(duplicateProbability: 0.25, corruptProbability: 0.1), seed: 5)
        var duplicated = 0
        var corrupted = 0
        for _ in 0..<10_000 {
            let decision = model.decide(length: 200)
            if decision.duplicated { duplicated += 1 }
            if let flip = decision.corruption {
                corrupted += 1
                #expect((0..<200).contains(flip.index))
                #expect(flip.mask != 0)
            }
        }
        // 2,500 +/- 43 and 1,000 +/- 30 (sigma).
        #expect(abs(duplicated - 2_500) < 200)
        #expect(abs(corrupted - 1_000) < 130)
        #expect(model.counters.duplicated == duplicated)
        #expect(model.counters.corrupted == corrupted)
    }

    @Test func nothingHappensWithTheDefaultProfile() {
        var model = ImpairmentModel(profile: .none, seed: 9)
        for _ in 0..<1_000 { #expect(model.decide(length: 100) == ImpairmentDecision()) }
    }

    @Test func anEmptyDatagramIsNeverCorrupted() {
        var model = ImpairmentModel(profile: .init(corruptProbability: 1), seed: 9)
        #expect(model.decide(length: 0).corruption == nil)
        #expect(model.decide(length: 1).corruption?.index == 0)
    }
}

@Suite struct ImpairmentQueueTests {
    @Test func jitterDelaysButKeepsTheOrder() {
        var model = ImpairmentModel(profile: .init(delayMilliseconds: 50, jitterMilliseconds: 10), seed: 21)
        var queue = ImpairmentQueue<Int>()
        // One datagram a millisecond for 200 ms: with +/- 10 ms of jitter
        // many would overtake each other without the in-order rule.
        for index in 0..<200 {
            let now = UInt64(index) * 1_000_000
            let decision = model.decide(length: 100)
            let release = queue.schedule(index, decision: decision, now: now)
            #expect(release.map { $0 >= now + decision.delayNanoseconds } == true)
        }
        #expect(queue.popDue(now: 39_000_000) == nil)  // nothing before 40 ms
        var out: [Int] = []
        var now: UInt64 = 0
        while !queue.isEmpty {
            now += 1_000_000
            while let index = queue.popDue(now: now) { out.append(index) }
        }
        #expect(out == Array(0..<200))
    }

    @Test func aReorderedDatagramIsOvertaken() {
        var queue = ImpairmentQueue<Int>()
        queue.schedule(0, decision: .init(delayNanoseconds: 1_000), now: 0)
        queue.schedule(1, decision: .init(delayNanoseconds: 30_000, reordered: true), now: 1)
        queue.schedule(2, decision: .init(delayNanoseconds: 1_000), now: 2)
        queue.schedule(3, decision: .init(delayNanoseconds: 1_000), now: 3)
        var out: [Int] = []
        while let index = queue.popDue(now: 1_000_000) { out.append(index) }
        #expect(out == [0, 2, 3, 1])
    }

    @Test func dropsAreNotQueuedAndDuplicatesLeaveTogether() {
        var queue = ImpairmentQueue<String>()
        #expect(queue.schedule("lost", decision: .init(dropped: true), now: 0) == nil)
        queue.schedule("twice", decision: .init(delayNanoseconds: 5, duplicated: true), now: 0)
        queue.schedule("once", decision: .init(delayNanoseconds: 5), now: 0)
        #expect(queue.count == 3)
        #expect(queue.popDue(now: 4) == nil)
        #expect(queue.popDue(now: 5) == "twice")
        #expect(queue.popDue(now: 5) == "twice")
        #expect(queue.popDue(now: 5) == "once")
        #expect(queue.nextRelease == nil)
    }
}

/// The relay over real loopback sockets: a client socket sends to the
/// relay; an echo target answers each datagram.
@Suite(.serialized) struct UDPImpairmentRelayTests {
    @Test func relaysBothWaysWithADistinctAddressPerClient() throws {
        let target = try TestUDPSocket()
        let relay = try UDPImpairmentRelay(.init(targetPort: target.port, seed: 1))
        relay.start()
        defer { relay.stop() }
        let alice = try TestUDPSocket()
        let bob = try TestUDPSocket()
        try alice.send(Array("from alice".utf8), to: relay.port)
        try bob.send(Array("from bob".utf8), to: relay.port)

        var sources: [String: UInt16] = [:]
        for _ in 0..<2 {
            let (bytes, from) = try #require(target.receive())
            sources[String(decoding: bytes, as: UTF8.self)] = from
            try target.send(Array("reply to ".utf8) + bytes, to: from)
        }
        #expect(sources.count == 2)
        #expect(Set(sources.values).count == 2)
        #expect(!sources.values.contains(alice.port) && !sources.values.contains(relay.port))
        #expect(try #require(alice.receive()) == (Array("reply to from alice".utf8), relay.port))
        #expect(try #require(bob.receive()) == (Array("reply to from bob".utf8), relay.port))
        let counters = relay.stop()
        #expect(counters.clients == 2)
        #expect(counters.upstream.sent == 2 && counters.downstream.sent == 2)
    }

    @Test func aRateLimitedDirectionQueuesThenDropsTheTail() throws {
        let target = try TestUDPSocket()
        // 800 kbit/s: a 1,000-byte datagram takes 10 ms; the queue holds 100 ms.
        let relay = try UDPImpairmentRelay(
            .init(targetPort: target.port, upstream: .init(rateKilobitsPerSecond: 800, queueMilliseconds: 100), seed: 4))
        relay.start()
        defer { relay.stop() }
        let client = try TestUDPSocket()
        // 40 datagrams at once: far more than 100 ms of data.
        for index in 0..<40 { try client.send([UInt8(index)] + [UInt8](repeating: 0, count: 999), to: relay.port) }
        var received: [UInt8] = []
        var arrivals: [Date] = []
        while let (bytes, _) = target.receive(timeoutMilliseconds: 500) {
            received.append(bytes[0])
            arrivals.append(Date())
        }
        let counters = relay.stop()
        // The first goes at once, the queue holds 10 more (100 ms), the
        // others are dropped; the relay's own pace (it reads the 40 over a
        // few ms) may let one or two more in.
        #expect((11...14).contains(received.count), "\(received.count) received")
        #expect(received == received.sorted())
        #expect(counters.upstream.queueDropped == 40 - received.count)
        #expect(counters.upstream.dropped == 0)
        if let first = arrivals.first, let last = arrivals.last {
            // 10 datagrams behind the first, 10 ms each at the rate: 100 ms.
            // The bound leaves 30 ms for this thread reading the first one
            // late on a busy machine (85.6 ms measured once under the whole
            // suite); a relay that did not pace delivers all in under 5 ms.
            #expect(last.timeIntervalSince(first) >= 0.070, "\(last.timeIntervalSince(first)) s")
        }
    }

    @Test func delaysDatagramsInOrder() throws {
        let target = try TestUDPSocket()
        let relay = try UDPImpairmentRelay(
            .init(targetPort: target.port, upstream: .init(delayMilliseconds: 40, jitterMilliseconds: 10), seed: 2))
        relay.start()
        defer { relay.stop() }
        let client = try TestUDPSocket()
        let start = Date()
        for index in 0..<50 { try client.send([UInt8(index)], to: relay.port) }
        var received: [UInt8] = []
        while received.count < 50, let (bytes, _) = target.receive() { received += bytes }
        // The first datagram waited at least 30 ms (40 - 10).
        #expect(Date().timeIntervalSince(start) >= 0.030)
        #expect(received == (0..<50).map { UInt8($0) })
    }

    @Test func duplicatesAndCorruptsEveryDatagramWhenAskedTo() throws {
        let target = try TestUDPSocket()
        let relay = try UDPImpairmentRelay(
            .init(targetPort: target.port, upstream: .init(duplicateProbability: 1, corruptProbability: 1), seed: 3))
        relay.start()
        defer { relay.stop() }
        let client = try TestUDPSocket()
        let payload = [UInt8](repeating: 0xAA, count: 64)
        try client.send(payload, to: relay.port)
        let first = try #require(target.receive()).0
        let second = try #require(target.receive()).0
        #expect(first == second)
        #expect(zip(first, payload).filter { $0 != $1 }.count == 1)
        #expect(first.count == payload.count)
        let counters = relay.stop()
        #expect(counters.upstream.duplicated == 1 && counters.upstream.corrupted == 1 && counters.upstream.sent == 2)
    }

    @Test func dropsAboutTheAskedShareAndReplaysFromTheSeed() throws {
        func survivors(seed: UInt64) throws -> [UInt16] {
            let target = try TestUDPSocket()
            let relay = try UDPImpairmentRelay(
                .init(targetPort: target.port, upstream: .init(dropProbability: 0.3), seed: seed))
            relay.start()
            defer { relay.stop() }
            let client = try TestUDPSocket()
            for index in 0..<300 {
                try client.send([UInt8(index >> 8), UInt8(index & 0xFF)], to: relay.port)
                // Paced, so the loopback never overflows: only the relay drops.
                if index % 50 == 49 { usleep(2_000) }
            }
            var received: [UInt16] = []
            while let (bytes, _) = target.receive(timeoutMilliseconds: 300) {
                received.append(UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
            }
            #expect(relay.counters.upstream.dropped == 300 - received.count)
            return received
        }
        let first = try survivors(seed: 99)
        // 300 at 30%: 90 +/- 8 (sigma) dropped.
        #expect(abs((300 - first.count) - 90) < 35)
        #expect(try survivors(seed: 99) == first)
        #expect(try survivors(seed: 100) != first)
    }
}

extension UDPImpairmentRelayTests {
    @Test func theProfileChangesWhileRunning() throws {
        let target = try TestUDPSocket()
        let relay = try UDPImpairmentRelay(
            .init(targetPort: target.port, upstream: .init(dropProbability: 1), seed: 4))
        relay.start()
        defer { relay.stop() }
        let client = try TestUDPSocket()
        try client.send([1], to: relay.port)
        #expect(target.receive(timeoutMilliseconds: 200) == nil)
        relay.setProfiles(upstream: .none, downstream: .none)
        #expect(relay.profiles.upstream == .none)
        // Adopted before the relay decides about the next datagram.
        try client.send([2], to: relay.port)
        try client.send([3], to: relay.port)
        var received: [UInt8] = []
        while let (bytes, _) = target.receive(timeoutMilliseconds: 300) { received += bytes }
        #expect(received == [2, 3])
    }
}

/// A blocking IPv4 UDP socket on 127.0.0.1 for the relay tests.
private final class TestUDPSocket {
    let fd: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in.loopback(port: 0)
        let result = withUnsafePointer(to: &address) {
            // The IPv4 layout of sockaddr.
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard fd >= 0, result == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            // The IPv4 layout of sockaddr.
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8], to port: UInt16) throws {
        var destination = sockaddr_in.loopback(port: port)
        let sent = withUnsafePointer(to: &destination) {
            // The IPv4 layout of sockaddr.
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard sent == bytes.count else { throw POSIXError(.EIO) }
    }

    /// The next datagram and its source port, nil after `timeoutMilliseconds`.
    func receive(timeoutMilliseconds: Int32 = 2_000) -> ([UInt8], UInt16)? {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, timeoutMilliseconds) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 2_048)
        var from = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = withUnsafeMutablePointer(to: &from) {
            // The IPv4 layout of sockaddr, sized by `length`.
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                recvfrom(fd, &buffer, buffer.count, 0, $0, &length)
            }
        }
        guard count >= 0 else { return nil }
        return (Array(buffer[0..<count]), UInt16(bigEndian: from.sin_port))
    }
}
