/// The receiver's replay list for one stream (RFC 3711 section 3.3.2): the
/// highest authenticated index and one bit for each of the 1024 indices at
/// or below it. An index above the highest is new; one more than 1023 below
/// it is too old; in between, its bit says whether it was already received.
///
/// 1024 rather than the RFC's minimum of 64: libwebrtc's value, so video
/// reordered by up to ~1 s at 1000 packets/s still plays. The bits live
/// inline (16 words, a ring indexed by `index % 1024`), so recording an index
/// never allocates. SRTP indices are 48 bits, SRTCP's 31: both fit.
struct SRTPReplayWindow {
    static let size = 1024
    private static let words = size / 64

    enum Verdict: Equatable {
        case new
        case replayed
        case tooOld
    }

    /// The highest index recorded; meaningless while `isEmpty`.
    private(set) var highest: UInt64 = 0
    private(set) var isEmpty = true
    private var bits: (
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
    ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    /// Whether `index` may be accepted (before authentication: a replay is
    /// refused without spending a MAC on it, as libsrtp does).
    func check(_ index: UInt64) -> Verdict {
        if isEmpty || index > highest { return .new }
        if highest - index >= UInt64(Self.size) { return .tooOld }
        return isSet(index) ? .replayed : .new
    }

    /// Records an authenticated `index` (which `check` called new).
    mutating func record(_ index: UInt64) {
        if isEmpty {
            isEmpty = false
            highest = index
            bits = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        } else if index > highest {
            let advance = index - highest
            if advance >= UInt64(Self.size) {
                bits = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            } else {
                // The slots of the indices skipped over now stand for them,
                // not for the ones 1024 below: clear them (usually none).
                var skipped = highest &+ 1
                while skipped < index {
                    setBit(skipped, to: false)
                    skipped &+= 1
                }
            }
            highest = index
        }
        setBit(index, to: true)
    }

    private func isSet(_ index: UInt64) -> Bool {
        let position = Int(index & UInt64(Self.size - 1))
        // Reads one of the 16 inline words: the tuple is laid out contiguously.
        let word = withUnsafeBytes(of: bits) { $0.load(fromByteOffset: (position >> 6) * 8, as: UInt64.self) }
        return word & (1 << UInt64(position & 63)) != 0
    }

    private mutating func setBit(_ index: UInt64, to value: Bool) {
        let position = Int(index & UInt64(Self.size - 1))
        // Writes one of the 16 inline words of the homogeneous tuple, in place.
        withUnsafeMutableBytes(of: &bits) { raw in
            let offset = (position >> 6) * 8
            var word = raw.load(fromByteOffset: offset, as: UInt64.self)
            let mask: UInt64 = 1 << UInt64(position & 63)
            word = value ? word | mask : word & ~mask
            raw.storeBytes(of: word, toByteOffset: offset, as: UInt64.self)
        }
    }
}
