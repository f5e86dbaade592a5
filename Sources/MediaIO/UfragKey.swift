/// A local ICE ufrag as a fixed-size value, so that the demux finds a STUN
/// check's connection without making or hashing a String per packet. Ours
/// are 8 characters (`ICECredentials.random`); up to 16 fit, and a longer
/// USERNAME part (RFC 8839 allows up to 256) cannot be one of ours.
struct UfragKey: Hashable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0
    private var count: UInt8 = 0

    init?(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, bytes.count <= 16 else { return nil }
        count = UInt8(bytes.count)
        for (index, byte) in bytes.enumerated() {
            if index < 8 {
                low |= UInt64(byte) << (8 * UInt64(index))
            } else {
                high |= UInt64(byte) << (8 * UInt64(index - 8))
            }
        }
    }

    init?(_ ufrag: String) {
        var utf8 = Array(ufrag.utf8)
        guard let key = utf8.withUnsafeMutableBytes({ UfragKey(UnsafeRawBufferPointer($0)) }) else { return nil }
        self = key
    }
}
