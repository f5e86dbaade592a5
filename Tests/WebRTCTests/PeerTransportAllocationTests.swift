import Glibc
import Testing
@testable import WebRTC

/// Counts Swift heap allocations (`swift_allocObject`: class instances,
/// array and string storage, closure contexts, boxes) made on one thread,
/// through the runtime's `_swift_allocObject` hook. libsrtp's own mallocs
/// are not Swift allocations and are not counted (SFUBenchmarks counts
/// every malloc).
private nonisolated(unsafe) var originalAllocObject: (@convention(c) (UnsafeRawPointer?, Int, Int) -> UnsafeMutableRawPointer?)?
private nonisolated(unsafe) var countedThread: pthread_t = 0
private nonisolated(unsafe) var swiftAllocations = 0

private let countingAllocObject: @convention(c) (UnsafeRawPointer?, Int, Int) -> UnsafeMutableRawPointer? = {
    metadata, size, alignmentMask in
    if pthread_equal(pthread_self(), countedThread) != 0 { swiftAllocations += 1 }
    return originalAllocObject!(metadata, size, alignmentMask)
}

/// Runs `body` with Swift allocations on this thread counted; returns the count.
private func countingSwiftAllocations(_ body: () throws -> Void) throws -> Int {
    let hook = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "_swift_allocObject"))
    let slot = hook.assumingMemoryBound(to: (@convention(c) (UnsafeRawPointer?, Int, Int) -> UnsafeMutableRawPointer?).self)
    originalAllocObject = slot.pointee
    countedThread = pthread_self()
    swiftAllocations = 0
    slot.pointee = countingAllocObject
    defer {
        slot.pointee = originalAllocObject!
        countedThread = 0
    }
    try body()
    return swiftAllocations
}

@Suite(.serialized) struct PeerTransportAllocationTests {
    @Test(arguments: SRTPProfile.allCases)
    func steadyStateProtectAndUnprotectAllocateNothingInSwift(profile: SRTPProfile) throws {
        let pair = try TransportPair(clientProfiles: [profile])
        pair.connect()
        try #require(pair.server.isConnected)
        #expect(pair.server.srtpProfile == profile)
        let slot = PacketSlot()
        let plain = rtpPacket(sequence: 1, payload: 1000)
        _ = slot.load(plain)
        var sequence: UInt16 = 1
        func roundTrip() {
            // Bump the sequence number in place: no new array.
            sequence &+= 1
            slot.buffer[2] = UInt8(sequence >> 8)
            slot.buffer[3] = UInt8(sequence & 0xFF)
            guard let protected = pair.client.protectRTP(slot.buffer, length: plain.count),
                case .rtp(let length) = pair.server.receive(slot.buffer, length: protected, from: pair.clientAddress,
                                                            now: pair.now),
                length == plain.count
            else { return }
        }
        for _ in 0..<10 { roundTrip() }  // warm-up: libsrtp creates its stream on the first packet
        let counted = try countingSwiftAllocations {
            for _ in 0..<1000 { roundTrip() }
        }
        #expect(counted == 0)
        #expect(pair.server.counters.rtpReceived == 1010)
        // The counter works: an array on the path would be seen.
        let control = try countingSwiftAllocations {
            _ = [UInt8](repeating: 0, count: Int(sequence) + 1)
        }
        #expect(control >= 1)
    }
}
