/// Builds a STUN message (RFC 5389 section 6, RFC 8489 section 5) in the
/// caller's buffer, attribute by attribute, allocating nothing.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |0 0|     STUN Message Type     |         Message Length        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         Magic Cookie                          |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                     Transaction ID (96 bits)                  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  Type  |  Length  |  Value, padded with 0-3 bytes to 4   ...  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The header's length field is kept current after every append, so the
/// buffer holds a valid message at all times. Append attributes in the
/// order RFC 5389 section 15 requires: everything else, then
/// `appendMessageIntegrity(key:)` (which covers what precedes it), then
/// `appendFingerprint()` last. An append that would not fit throws
/// `.bufferTooSmall` (or `.valueOutOfRange` past STUN's 16-bit length)
/// and writes nothing.
///
/// ```swift
/// var w = try STUNMessageWriter(buffer: slot, type: .bindingRequest, transactionID: .random())
/// try w.appendUsername("remote:local")
/// try w.appendPriority(candidatePriority)
/// try w.appendICEControlling(tieBreaker)
/// try w.appendMessageIntegrity(key: password)
/// try w.appendFingerprint()
/// send(slot.prefix(w.finish()))
/// ```
///
/// Not `Sendable`: it writes into memory the caller owns.
public struct STUNMessageWriter {
    public let buffer: UnsafeMutableRawBufferPointer
    /// Bytes written so far, header included; always a multiple of 4.
    @inlinable
    public var length: Int { written }
    @usableFromInline var written: Int

    /// Writes the 20-byte header with an attribute length of 0.
    @inlinable
    public init(buffer: UnsafeMutableRawBufferPointer, type: STUNMessageType, transactionID: STUNTransactionID)
        throws(PacketError)
    {
        guard buffer.count >= STUNMessageView.headerSize else { throw .bufferTooSmall }
        self.buffer = buffer
        self.written = STUNMessageView.headerSize
        buffer.setU16(type.rawValue, at: 0)
        buffer.setU16(0, at: 2)
        buffer.setU32(STUNMessageView.magicCookie, at: 4)
        transactionID.write(to: buffer, at: 8)
    }

    /// The message's length in bytes (header included), for sending.
    @inlinable
    public func finish() -> Int { length }

    /// Reserves an attribute with a `valueLength`-byte value: checks room,
    /// writes the TLV header and the padding, updates the header's length
    /// field, and returns the value's offset.
    @inlinable
    mutating func reserve(type: STUNAttributeType, valueLength: Int, padding: UInt8) throws(PacketError) -> Int {
        guard valueLength >= 0, valueLength <= 0xFFFF else { throw .valueOutOfRange }
        let end = length + 4 + STUNMessageView.padded(valueLength)
        // The 16-bit length field caps the attributes at 65532 bytes (a multiple of 4).
        guard end - STUNMessageView.headerSize <= 0xFFFF else { throw .valueOutOfRange }
        guard end <= buffer.count else { throw .bufferTooSmall }
        let valueOffset = length + 4
        buffer.setU16(type.rawValue, at: length)
        buffer.setU16(UInt16(truncatingIfNeeded: valueLength), at: length + 2)
        for i in (valueOffset + valueLength)..<end {
            buffer.setU8(padding, at: i)
        }
        written = end
        buffer.setU16(UInt16(truncatingIfNeeded: end - STUNMessageView.headerSize), at: 2)
        return valueOffset
    }

    /// Appends any attribute; the value is padded to 4 bytes with `padding`
    /// (0 by default; RFC 5389 says the padding's content is ignored, and the
    /// RFC 5769 samples use spaces, which this parameter reproduces).
    @inlinable
    public mutating func append(type: STUNAttributeType, value: UnsafeRawBufferPointer, padding: UInt8 = 0)
        throws(PacketError)
    {
        let at = try reserve(type: type, valueLength: value.count, padding: padding)
        if let source = value.baseAddress, let destination = buffer.baseAddress {
            (destination + at).copyMemory(from: source, byteCount: value.count)
        }
    }

    /// Appends an attribute whose value is `bytes` (e.g. a String's `utf8`),
    /// copied without making an array.
    @inlinable
    public mutating func append<Bytes: Collection<UInt8>>(type: STUNAttributeType, bytes: Bytes, padding: UInt8 = 0)
        throws(PacketError)
    {
        let count = bytes.count
        var at = try reserve(type: type, valueLength: count, padding: padding)
        let end = at + count
        for byte in bytes {
            // A collection whose `count` lied cannot write past its reservation.
            guard at < end else { break }
            buffer.setU8(byte, at: at)
            at += 1
        }
    }

    /// USERNAME (RFC 5389 section 15.3); for ICE "remoteUfrag:localUfrag"
    /// (RFC 8445 section 7.2.2). RFC 8489 section 14.3: "fewer than 509
    /// bytes", so 509 or more is `.valueOutOfRange` (RFC 5389 said fewer
    /// than 513). The view stays lenient and returns whatever USERNAME a
    /// peer sent.
    @inlinable
    public mutating func appendUsername(_ username: UnsafeRawBufferPointer, padding: UInt8 = 0) throws(PacketError) {
        guard username.count < STUNMessageWriter.usernameLimit else { throw .valueOutOfRange }
        try append(type: .username, value: username, padding: padding)
    }

    /// USERNAME from a String's UTF-8 bytes.
    @inlinable
    public mutating func appendUsername(_ username: String, padding: UInt8 = 0) throws(PacketError) {
        guard username.utf8.count < STUNMessageWriter.usernameLimit else { throw .valueOutOfRange }
        try append(type: .username, bytes: username.utf8, padding: padding)
    }

    /// USERNAME must be shorter than this many bytes (RFC 8489 section 14.3).
    @inlinable
    static var usernameLimit: Int { 509 }

    /// SOFTWARE (RFC 5389 section 15.10), UTF-8, under 128 characters.
    @inlinable
    public mutating func appendSoftware(_ software: String, padding: UInt8 = 0) throws(PacketError) {
        guard software.utf8.count <= 763 else { throw .valueOutOfRange }
        try append(type: .software, bytes: software.utf8, padding: padding)
    }

    /// PRIORITY (RFC 8445 section 7.1.1).
    @inlinable
    public mutating func appendPriority(_ priority: UInt32) throws(PacketError) {
        let at = try reserve(type: .priority, valueLength: 4, padding: 0)
        buffer.setU32(priority, at: at)
    }

    /// USE-CANDIDATE (RFC 8445 section 7.1.2): an empty value.
    @inlinable
    public mutating func appendUseCandidate() throws(PacketError) {
        _ = try reserve(type: .useCandidate, valueLength: 0, padding: 0)
    }

    /// ICE-CONTROLLING with its 64-bit tie-breaker (RFC 8445 section 7.1.3).
    @inlinable
    public mutating func appendICEControlling(_ tieBreaker: UInt64) throws(PacketError) {
        let at = try reserve(type: .iceControlling, valueLength: 8, padding: 0)
        buffer.setU64(tieBreaker, at: at)
    }

    /// ICE-CONTROLLED with its 64-bit tie-breaker (RFC 8445 section 7.1.3).
    @inlinable
    public mutating func appendICEControlled(_ tieBreaker: UInt64) throws(PacketError) {
        let at = try reserve(type: .iceControlled, valueLength: 8, padding: 0)
        buffer.setU64(tieBreaker, at: at)
    }

    /// XOR-MAPPED-ADDRESS (RFC 5389 section 15.2), XOR'd with the cookie
    /// and the transaction ID already in the header.
    @inlinable
    public mutating func appendXORMappedAddress(_ address: STUNAddress) throws(PacketError) {
        let at = try reserve(type: .xorMappedAddress, valueLength: address.encodedSize, padding: 0)
        address.writeAttributeValue(to: buffer, at: at, xor: transactionID)
    }

    /// MAPPED-ADDRESS (RFC 5389 section 15.1), for RFC 3489 clients.
    @inlinable
    public mutating func appendMappedAddress(_ address: STUNAddress) throws(PacketError) {
        let at = try reserve(type: .mappedAddress, valueLength: address.encodedSize, padding: 0)
        address.writeAttributeValue(to: buffer, at: at, xor: nil)
    }

    /// ERROR-CODE (RFC 5389 section 15.6): `code` in 300...699 (e.g. 400 Bad
    /// Request, 401 Unauthorized, 487 Role Conflict from RFC 8445 section
    /// 7.3.1.1) and a UTF-8 reason of at most 763 bytes.
    @inlinable
    public mutating func appendErrorCode(code: Int, reason: UnsafeRawBufferPointer, padding: UInt8 = 0)
        throws(PacketError)
    {
        let at = try reserveErrorCode(code: code, reasonLength: reason.count, padding: padding)
        if let source = reason.baseAddress, let destination = buffer.baseAddress {
            (destination + at).copyMemory(from: source, byteCount: reason.count)
        }
    }

    /// ERROR-CODE with a String reason ("Role Conflict").
    @inlinable
    public mutating func appendErrorCode(code: Int, reason: String, padding: UInt8 = 0) throws(PacketError) {
        var at = try reserveErrorCode(code: code, reasonLength: reason.utf8.count, padding: padding)
        for byte in reason.utf8 {
            buffer.setU8(byte, at: at)
            at += 1
        }
    }

    /// Checks an ERROR-CODE's ranges, reserves it and writes its 4-byte
    /// class/number header; returns the reason's offset.
    @inlinable
    mutating func reserveErrorCode(code: Int, reasonLength: Int, padding: UInt8) throws(PacketError) -> Int {
        guard (300...699).contains(code), reasonLength <= 763 else { throw .valueOutOfRange }
        let at = try reserve(type: .errorCode, valueLength: 4 + reasonLength, padding: padding)
        buffer.setU16(0, at: at)
        buffer.setU8(UInt8(code / 100), at: at + 2)
        buffer.setU8(UInt8(code % 100), at: at + 3)
        return at + 4
    }

    /// MESSAGE-INTEGRITY (RFC 5389 section 15.4): HMAC-SHA1 under `key` of
    /// everything written so far, with the header's length already counting
    /// this attribute. For ICE the key is the password's UTF-8 bytes (the
    /// peer's password on requests, ours on responses: RFC 8445 section 7.2.2).
    public mutating func appendMessageIntegrity(key: UnsafeRawBufferPointer) throws(PacketError) {
        let start = length
        let at = try reserve(type: .messageIntegrity, valueLength: 20, padding: 0)
        let covered = UnsafeRawBufferPointer(rebasing: buffer[0..<start])
        let mac = UnsafeMutableRawBufferPointer(rebasing: buffer[at..<(at + 20)])
        guard STUNHMAC.sha1(key: key, data: covered, into: mac) else {
            // Only an OpenSSL failure lands here: take the attribute back.
            written = start
            buffer.setU16(UInt16(truncatingIfNeeded: start - STUNMessageView.headerSize), at: 2)
            throw .integrityMismatch
        }
    }

    /// `appendMessageIntegrity(key:)` with a password's UTF-8 bytes as key.
    public mutating func appendMessageIntegrity(password: String) throws(PacketError) {
        try withUTF8Bytes(of: password) { key throws(PacketError) in try appendMessageIntegrity(key: key) }
    }

    /// FINGERPRINT (RFC 5389 section 15.5): CRC-32 of everything written so
    /// far, the header's length counting this attribute, XOR 0x5354554e.
    /// Must be the last attribute.
    @inlinable
    public mutating func appendFingerprint() throws(PacketError) {
        let start = length
        let at = try reserve(type: .fingerprint, valueLength: 4, padding: 0)
        let crc = CRC32.checksum(UnsafeRawBufferPointer(rebasing: buffer[0..<start]))
        buffer.setU32(crc ^ STUNMessageView.fingerprintXOR, at: at)
    }

    /// The transaction ID in the header (needed to XOR addresses).
    @inlinable
    var transactionID: STUNTransactionID { STUNTransactionID(header: UnsafeRawBufferPointer(buffer)) }
}
