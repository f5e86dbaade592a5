import Foundation
import Glibc
import LibSRTPReference
import Testing
@testable import WebRTC

/// The steady-state packet path (PeerTransport.protectRTP -> receive ->
/// unprotect in place) must allocate nothing: SRTP is ours on OpenSSL's EVP
/// (issue 16). The same number of libsrtp2 protect/unprotect calls is
/// counted beside it, for the record (on NSS it allocates per packet).
///
/// Counting uses glibc's mtrace (libc_malloc_debug.so preloaded) in a child
/// run of this test binary, so parallel tests cannot add to the count.
@Suite struct PeerTransportAllocationTests {
    static let childVariable = "VROOM_ALLOCATION_CHILD"
    static let preload = "/usr/lib/x86_64-linux-gnu/libc_malloc_debug.so.0"
    static let packets = 200
    /// Marker allocation sizes that delimit the phases in the trace.
    static let markers = (start: 0x7A51, middle: 0x7A52, end: 0x7A53)

    @Test(.enabled(if: FileManager.default.fileExists(atPath: preload)
                   && ProcessInfo.processInfo.environment[childVariable] == nil))
    func steadyStatePacketPathAddsNoAllocations() throws {
        for profile in ["gcm", "cm"] {
            let trace = FileManager.default.temporaryDirectory
                .appendingPathComponent("vroom-mtrace-\(getpid())-\(profile).log").path
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["--testing-library", "swift-testing",
                                 "--filter", "PeerTransportAllocationTests/childMeasuresAllocations"]
            var environment = ProcessInfo.processInfo.environment
            environment["LD_PRELOAD"] = PeerTransportAllocationTests.preload
            environment["MALLOC_TRACE"] = trace
            environment[PeerTransportAllocationTests.childVariable] = profile
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let log = try String(contentsOfFile: trace, encoding: .utf8)
            try? FileManager.default.removeItem(atPath: trace)
            let counts = try #require(PeerTransportAllocationTests.mallocCounts(in: log))
            // Nothing at all. (One malloc per packet would count 200.)
            #expect(counts.transport == 0, "\(profile): transport \(counts.transport), raw libsrtp \(counts.raw)")
        }
    }

    /// Mallocs ("+" lines) between the start and middle markers (our path)
    /// and between the middle and end markers (raw libsrtp).
    static func mallocCounts(in log: String) -> (transport: Int, raw: Int)? {
        var phase = -1
        var counts = [0, 0]
        for line in log.split(separator: "\n") {
            guard line.contains(" + 0x") else { continue }
            let size = line.split(separator: " ").last.flatMap { Int($0.dropFirst(2), radix: 16) }
            switch size {
            case markers.start: phase = 0
            case markers.middle: phase = 1
            case markers.end: phase = 2
            default: if (0...1).contains(phase) { counts[phase] += 1 }
            }
        }
        return phase == 2 ? (counts[0], counts[1]) : nil
    }

    private static func marker(_ size: Int) {
        free(malloc(size))
    }

    /// Runs only in the child (see above): both loops under mtrace.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil))
    func childMeasuresAllocations() throws {
        let profile: SRTPProfile = ProcessInfo.processInfo.environment[PeerTransportAllocationTests.childVariable] == "cm"
            ? .aes128CMSHA1_80 : .aeadAES128GCM
        typealias TraceFunction = @convention(c) () -> Void
        // The preloaded library's mtrace, not libc's do-nothing default: the
        // debug library exports it only as the non-default version
        // mtrace@GLIBC_2.2.5, which needs dlvsym (not imported: ask dlsym).
        typealias VersionedLookup = @convention(c) (
            UnsafeMutableRawPointer?, UnsafePointer<CChar>, UnsafePointer<CChar>) -> UnsafeMutableRawPointer?
        let dlvsym = unsafeBitCast(try #require(dlsym(nil, "dlvsym")), to: VersionedLookup.self)
        let library = try #require(dlopen(PeerTransportAllocationTests.preload, RTLD_NOW | RTLD_NOLOAD))
        let mtrace = unsafeBitCast(try #require(dlvsym(library, "mtrace", "GLIBC_2.2.5")), to: TraceFunction.self)
        let muntrace = unsafeBitCast(try #require(dlvsym(library, "muntrace", "GLIBC_2.2.5")), to: TraceFunction.self)

        let pair = try TransportPair(clientProfiles: [profile])
        pair.connect()
        try #require(pair.server.isConnected)
        let slot = PacketSlot()
        let plain = rtpPacket(sequence: 1, payload: 1000)
        var sequence: UInt16 = 1

        // Raw libsrtp sessions with the same profile, for comparison.
        let material = SRTPKeyingMaterial(
            profile: profile, local: SRTPContextTests.keys(profile, seed: 3), remote: SRTPContextTests.keys(profile, seed: 3))
        let outbound = try #require(LibSRTPSession(gcm: profile == .aeadAES128GCM, key: material.local, outbound: true))
        let inbound = try #require(LibSRTPSession(gcm: profile == .aeadAES128GCM, key: material.local, outbound: false))

        func viaTransport() -> Bool {
            sequence &+= 1
            slot.buffer[2] = UInt8(sequence >> 8)
            slot.buffer[3] = UInt8(sequence & 0xFF)
            guard let protected = pair.client.protectRTP(slot.buffer, length: plain.count),
                case .rtp(let length) = pair.server.receive(slot.buffer, length: protected, from: pair.clientAddress,
                                                            now: pair.now)
            else { return false }
            return length == plain.count
        }
        func viaLibsrtp() -> Bool {
            sequence &+= 1
            slot.buffer[2] = UInt8(sequence >> 8)
            slot.buffer[3] = UInt8(sequence & 0xFF)
            guard let length = outbound.protect(slot.buffer.baseAddress!, length: plain.count, rtcp: false),
                case .success(let plainLength) = inbound.unprotect(slot.buffer.baseAddress!, length: length, rtcp: false)
            else { return false }
            return plainLength == plain.count
        }

        _ = slot.load(plain)
        var ok = true
        for _ in 0..<10 { ok = viaTransport() && ok }  // warm-up: libsrtp creates its streams
        sequence = 1
        for _ in 0..<10 { ok = viaLibsrtp() && ok }
        sequence = 100
        mtrace()
        PeerTransportAllocationTests.marker(PeerTransportAllocationTests.markers.start)
        for _ in 0..<PeerTransportAllocationTests.packets { ok = viaTransport() && ok }
        PeerTransportAllocationTests.marker(PeerTransportAllocationTests.markers.middle)
        for _ in 0..<PeerTransportAllocationTests.packets { ok = viaLibsrtp() && ok }
        PeerTransportAllocationTests.marker(PeerTransportAllocationTests.markers.end)
        muntrace()
        #expect(ok)
    }
}
