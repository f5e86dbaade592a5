/// Splits the byte stream OpenSSL wrote into a memory BIO into DTLS records
/// and packs whole records into datagrams of at most `mtu` bytes (RFC 6347
/// section 4.1.1: several records may share a datagram, none may span two).
///
/// ```
///  0        1        2        3        4   ...  10       11       12
/// +--------+--------+--------+--------+--------+--------+--------+
/// |  type  |    version      |  epoch |  sequence (48)  | length |
/// +--------+--------+--------+--------+--------+--------+--------+
/// ```
enum DTLSRecordPacker {
    static let headerLength = 13

    /// Calls `emit` with each datagram. A trailing partial record (which
    /// OpenSSL never writes) is sent as is rather than lost; a single record
    /// larger than `mtu` gets a datagram of its own.
    static func pack<Bytes: RandomAccessCollection<UInt8>>(_ stream: Bytes, mtu: Int, emit: ([UInt8]) -> Void)
    where Bytes.Index == Int {
        var current: [UInt8] = []
        var offset = stream.startIndex
        while offset < stream.endIndex {
            var end = stream.endIndex
            if stream.endIndex - offset >= headerLength {
                let length = Int(stream[offset + 11]) << 8 | Int(stream[offset + 12])
                end = min(stream.endIndex, offset + headerLength + length)
            }
            if !current.isEmpty, current.count + (end - offset) > mtu {
                emit(current)
                current.removeAll(keepingCapacity: true)
            }
            current.append(contentsOf: stream[offset..<end])
            offset = end
        }
        if !current.isEmpty { emit(current) }
    }
}
