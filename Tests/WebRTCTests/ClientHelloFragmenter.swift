/// Makes a DTLS client's ClientHello look like Chromium's: one handshake
/// message in two fragments, each in its own datagram (Chromium's 1413-byte
/// ClientHello arrives as 1200 + 263 bytes, INTEROP.md). OpenSSL's own
/// ClientHello (~210 bytes) fits even its smallest MTU of 256, so a test
/// splits it on the wire instead.
///
/// Epoch-0 records carry no MAC and the handshake transcript covers
/// handshake messages, not record headers, so the later epoch-0 records of
/// the client are renumbered (+1) to keep record sequence numbers unique.
final class ClientHelloFragmenter {
    private var sequenceShift: UInt64 = 0
    private(set) var splits = 0

    func process(_ datagram: [UInt8]) -> [[UInt8]] {
        guard (20...63).contains(datagram.first ?? 0) else { return [datagram] }
        var out: [[UInt8]] = []
        var current: [UInt8] = []
        var offset = 0
        while offset + 13 <= datagram.count {
            let length = Int(datagram[offset + 11]) << 8 | Int(datagram[offset + 12])
            let end = min(datagram.count, offset + 13 + length)
            var record = Array(datagram[offset..<end])
            offset = end
            let epoch = Int(record[3]) << 8 | Int(record[4])
            guard epoch == 0 else {
                current += record
                continue
            }
            let sequence = record[5..<11].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } + sequenceShift
            if record[0] == 22, record.count > 25, record[13] == 1 {
                // ClientHello: 12-byte handshake header, then the body.
                let body = Array(record[25...])
                let half = body.count / 2
                let header = Array(record[13..<19])  // msg_type, length, message_seq
                for (index, range) in [0..<half, half..<body.count].enumerated() {
                    var fragment = header
                    fragment += [0, UInt8(range.lowerBound >> 8), UInt8(range.lowerBound & 0xFF)]
                    fragment += [0, UInt8(range.count >> 8), UInt8(range.count & 0xFF)]
                    fragment += body[range]
                    var piece = Array(record[0..<5]) + ClientHelloFragmenter.bytes48(sequence + UInt64(index))
                    piece += [UInt8(fragment.count >> 8), UInt8(fragment.count & 0xFF)] + fragment
                    if !current.isEmpty { out.append(current) }
                    current = piece
                }
                sequenceShift += 1
                splits += 1
                continue
            }
            record.replaceSubrange(5..<11, with: ClientHelloFragmenter.bytes48(sequence))
            current += record
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    static func bytes48(_ value: UInt64) -> [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: value >> (40 - 8 * UInt64($0))) }
    }
}
