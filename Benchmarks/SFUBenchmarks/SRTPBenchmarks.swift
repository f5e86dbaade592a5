// SRTP protect and unprotect of one RTP packet of 1200 bytes (video) and of
// 100 bytes (audio, where the per-packet cost shows) (issue 16 items 1 and
// 3): ours (WebRTC's SRTPContext on OpenSSL) and libsrtp2 (Debian's, on
// NSS; LibSRTPReference) side by side in one run, for both profiles, so
// their ratio is measured on the same machine at the same moment.
// "(mallocs)" runs one packet per sample: "Malloc (total)" is per packet.
import Benchmark
import LibSRTPReference
import WebRTC

/// One sender and one receiver with the same key, and a `size`-byte packet
/// whose sequence number advances (so the receiver's replay check passes).
final class SRTPBenchmarkPair {
    let plain: [UInt8]
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
    let ours: (SRTPContext, SRTPContext)
    let theirs: (LibSRTPSession, LibSRTPSession)
    var sequence: UInt16 = 1

    init(profile: SRTPProfile, size: Int) {
        let key = (0..<(profile.keyLength + profile.saltLength)).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
        let material = SRTPKeyingMaterial(profile: profile, local: key, remote: key)
        ours = (try! SRTPContext(material: material), try! SRTPContext(material: material))
        let gcm = profile == .aeadAES128GCM
        theirs = (LibSRTPSession(gcm: gcm, key: key, outbound: true)!, LibSRTPSession(gcm: gcm, key: key, outbound: false)!)
        plain = [0x80, 96, 0, 1, 0, 0, 0x10, 0, 0x12, 0x34, 0x56, 0x78] + (0..<(size - 12)).map { UInt8(truncatingIfNeeded: $0) }
    }

    @inline(__always)
    func load() {
        plain.withUnsafeBytes { buffer.copyMemory(from: $0) }
        sequence &+= 1
        buffer.storeBytes(of: sequence.bigEndian, toByteOffset: 2, as: UInt16.self)
    }

    /// Protects with ours; leaves the SRTP packet in `buffer`.
    @inline(__always)
    func protectOurs() -> Int {
        load()
        return ours.0.protectRTP(buffer, length: plain.count)!
    }

    @inline(__always)
    func protectTheirs() -> Int {
        load()
        return theirs.0.protect(buffer.baseAddress!, length: plain.count, rtcp: false)!
    }
}

/// `count` protected packets in slots of their own, ready to unprotect.
struct SRTPBenchmarkBatch {
    let storage: UnsafeMutableRawBufferPointer
    let slots: [UnsafeMutableRawBufferPointer]
    let lengths: [Int]

    init(count: Int, buffer: UnsafeMutableRawBufferPointer, protect: () -> Int) {
        storage = .allocate(byteCount: count * 1500, alignment: 16)
        var slots: [UnsafeMutableRawBufferPointer] = []
        var lengths: [Int] = []
        for i in 0..<count {
            let slot = UnsafeMutableRawBufferPointer(rebasing: storage[(i * 1500)..<((i + 1) * 1500)])
            // `protect` leaves the packet in `buffer`: copy it into the slot.
            let length = protect()
            slot.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[0..<length]))
            lengths.append(length)
            slots.append(slot)
        }
        self.slots = slots
        self.lengths = lengths
    }

    func free() { storage.deallocate() }
}

/// One implementation's side of the rows: its protect (which leaves the
/// packet in the pair's buffer) and its unprotect of a slot (true when the
/// packet verified).
struct SRTPBenchmarkSide {
    let name: String
    let protect: (SRTPBenchmarkPair) -> Int
    let unprotect: (SRTPBenchmarkPair, UnsafeMutableRawBufferPointer, Int) -> Bool

    static var ours: SRTPBenchmarkSide {
        SRTPBenchmarkSide(name: "ours", protect: { $0.protectOurs() }) { pair, slot, length in
            if case .plaintext = pair.ours.1.unprotectRTP(slot, length: length) { return true }
            return false
        }
    }

    static var libsrtp2: SRTPBenchmarkSide {
        SRTPBenchmarkSide(name: "libsrtp2", protect: { $0.protectTheirs() }) { pair, slot, length in
            if case .success = pair.theirs.1.unprotect(slot.baseAddress!, length: length, rtcp: false) { return true }
            return false
        }
    }
}

func srtpBenchmarks() {
    let perPacket = Benchmark.Configuration(scalingFactor: .kilo)
    let profiles: [(String, SRTPProfile)] = [("AES-GCM", .aeadAES128GCM), ("AES-CM-SHA1-80", .aes128CMSHA1_80)]
    for (name, profile) in profiles {
        for size in [1200, 100] {
            for (suffix, configuration) in [("x1000", perPacket), ("mallocs", Benchmark.defaultConfiguration)] {
                for side in [SRTPBenchmarkSide.ours, .libsrtp2] {
                    // Protect: the packet is reloaded each time (a `size`-byte
                    // copy, in both columns alike).
                    Benchmark("SRTP \(name) protect \(size) B, \(side.name) (\(suffix))", configuration: configuration) { benchmark in
                        let pair = SRTPBenchmarkPair(profile: profile, size: size)
                        benchmark.startMeasurement()
                        for _ in benchmark.scaledIterations { blackHole(side.protect(pair)) }
                        benchmark.stopMeasurement()
                    }
                    // Unprotect: the sample's packets are protected first
                    // (unmeasured) into slots of their own, then unprotected
                    // in a row; each must verify, and a repeat must not.
                    Benchmark("SRTP \(name) unprotect \(size) B, \(side.name) (\(suffix))", configuration: configuration) { benchmark in
                        let pair = SRTPBenchmarkPair(profile: profile, size: size)
                        let batch = SRTPBenchmarkBatch(count: benchmark.scaledIterations.count, buffer: pair.buffer) { side.protect(pair) }
                        let slots = batch.slots
                        var failed = 0
                        benchmark.startMeasurement()
                        for i in 0..<slots.count where !side.unprotect(pair, slots[i], batch.lengths[i]) { failed += 1 }
                        benchmark.stopMeasurement()
                        precondition(failed == 0 && !side.unprotect(pair, slots[0], batch.lengths[0]))
                        batch.free()
                    }
                }
            }
        }
    }
}
