import COpenSSL

/// A STUN message (RFC 5389 section 6, RFC 8489 section 5) as ICE uses it
/// (RFC 8445 section 7), read in place from the caller's bytes.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |0 0|     STUN Message Type     |         Message Length        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         Magic Cookie                          |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                                                               |
/// |                     Transaction ID (96 bits)                  |
/// |                                                               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |         Type                  |            Length             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         Value (variable)                ....
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// `init(validating:)` checks the header (RFC 5389 section 7.3: top two bits
/// 0, length a multiple of 4 equal to the bytes after the 20-byte header,
/// magic cookie 0x2112A442) and that every attribute, with its padding to a
/// multiple of 4, lies inside the message; it remembers where
/// MESSAGE-INTEGRITY and a final FINGERPRINT sit. Accessors then read without
/// further bounds checks and allocate nothing. A typed accessor returns nil
/// when its attribute is absent or malformed (wrong length, unknown family),
/// so one odd attribute does not cost the whole message.
///
/// Attributes after MESSAGE-INTEGRITY other than FINGERPRINT are ignored by
/// `attribute(_:)` and the typed accessors (RFC 5389 section 15.4): they are
/// not covered by the MAC. `attributes` still yields every TLV.
///
/// Not `Sendable`: it borrows memory the caller owns.
public struct STUNMessageView {
    /// The whole message, header included.
    public let bytes: UnsafeRawBufferPointer
    /// Offset of the first MESSAGE-INTEGRITY attribute's header, or -1.
    @usableFromInline let integrityOffset: Int
    /// Offset of the FINGERPRINT attribute's header if it is the last
    /// attribute, or -1 (RFC 5389 section 15.5: it must be last).
    @usableFromInline let fingerprintOffset: Int
    /// Where the attributes that count end: just past MESSAGE-INTEGRITY when
    /// present, else the end of the message.
    @usableFromInline let coveredEnd: Int

    /// 20 bytes: type, length, cookie, transaction ID.
    public static let headerSize = 20
    /// RFC 5389 section 6.
    public static let magicCookie: UInt32 = 0x2112_A442
    /// RFC 5389 section 15.5: CRC-32 XOR this, "STUN" in ASCII.
    public static let fingerprintXOR: UInt32 = 0x5354_554E

    /// Validates `bytes` as one whole STUN message. Throws `.truncated`
    /// (under 20 bytes, or a length field past the end), `.invalidType` (top
    /// two bits set: not STUN, RFC 7983), `.invalidLength` (length field not
    /// a multiple of 4 or short of the end), `.invalidMagicCookie`, or
    /// `.invalidField` (an attribute with its padding overruns the message).
    @inlinable
    public init(validating bytes: UnsafeRawBufferPointer) throws(PacketError) {
        guard bytes.count >= STUNMessageView.headerSize else { throw .truncated }
        guard bytes.u8(0) & 0xC0 == 0 else { throw .invalidType }
        let length = Int(bytes.u16(2))
        guard length & 3 == 0 else { throw .invalidLength }
        let available = bytes.count - STUNMessageView.headerSize
        guard length <= available else { throw .truncated }
        guard length == available else { throw .invalidLength }
        guard bytes.u32(4) == STUNMessageView.magicCookie else { throw .invalidMagicCookie }

        var integrity = -1
        var integrityEnd = bytes.count
        var last = -1
        var offset = STUNMessageView.headerSize
        // The bytes left are a multiple of 4 at every step (the length is,
        // and each attribute takes 4 + a multiple of 4), so when any are
        // left the 4-byte attribute header fits.
        while offset < bytes.count {
            let next = offset + 4 + STUNMessageView.padded(Int(bytes.u16(offset + 2)))
            guard next <= bytes.count else { throw .invalidField }
            if integrity < 0, bytes.u16(offset) == STUNAttributeType.messageIntegrity.rawValue {
                integrity = offset
                integrityEnd = next
            }
            last = offset
            offset = next
        }
        self.bytes = bytes
        self.integrityOffset = integrity
        self.coveredEnd = integrityEnd
        self.fingerprintOffset =
            last >= 0 && bytes.u16(last) == STUNAttributeType.fingerprint.rawValue ? last : -1
    }

    /// `n` rounded up to a multiple of 4.
    @inlinable @inline(__always)
    static func padded(_ n: Int) -> Int { (n &+ 3) & ~3 }

    // MARK: Header

    @inlinable
    public var messageType: STUNMessageType { STUNMessageType(rawValue: bytes.u16(0)) }

    /// The header's length field: bytes after the 20-byte header.
    @inlinable
    public var length: Int { Int(bytes.u16(2)) }

    @inlinable
    public var transactionID: STUNTransactionID { STUNTransactionID(header: bytes) }

    // MARK: Attributes

    /// Every attribute TLV in order, including any after MESSAGE-INTEGRITY.
    @inlinable
    public var attributes: STUNAttributeSequence {
        STUNAttributeSequence(bytes: bytes)
    }

    /// The first attribute of `type` that MESSAGE-INTEGRITY covers (or, for
    /// FINGERPRINT, the final attribute if it is one); nil if none.
    @inlinable
    public func attribute(_ type: STUNAttributeType) -> STUNAttributeView? {
        if type == .fingerprint {
            return fingerprintOffset < 0 ? nil : attributeView(at: fingerprintOffset)
        }
        var covered = STUNAttributeSequence.Iterator(bytes: bytes, offset: STUNMessageView.headerSize, end: coveredEnd)
        while let view = covered.next() {
            if view.type == type { return view }
        }
        return nil
    }

    /// The attribute whose header starts at a validated `offset`.
    @inlinable
    func attributeView(at offset: Int) -> STUNAttributeView {
        STUNAttributeView(tlvIn: bytes, at: offset)
    }

    // MARK: Typed accessors

    /// USERNAME (RFC 5389 section 15.3): for ICE "remoteUfrag:localUfrag"
    /// as UTF-8 bytes (RFC 8445 section 7.2.2). Lenient on purpose: returned
    /// whatever its length, although RFC 8489 section 14.3 asks for fewer
    /// than 509 bytes (the writer enforces that); the caller compares it
    /// with its own ufrags anyway, so an oversized one simply never matches.
    @inlinable
    public var username: UnsafeRawBufferPointer? { attribute(.username)?.value }

    /// Whether USERNAME is present and byte-for-byte `expected`.
    @inlinable
    public func usernameEquals(_ expected: UnsafeRawBufferPointer) -> Bool {
        guard let name = username, name.count == expected.count else { return false }
        return name.elementsEqual(expected)
    }

    /// Whether USERNAME is present and equals `expected`'s UTF-8 bytes.
    /// Compares in place: no String is made from the message.
    @inlinable
    public func usernameEquals(_ expected: String) -> Bool {
        guard let name = username else { return false }
        let utf8 = expected.utf8
        guard utf8.count == name.count else { return false }
        return utf8.withContiguousStorageIfAvailable { $0.elementsEqual(name) } ?? utf8.elementsEqual(name)
    }

    /// PRIORITY (RFC 8445 section 7.1.1), nil unless present with 4 bytes.
    @inlinable
    public var priority: UInt32? {
        guard let v = attribute(.priority)?.value, v.count == 4 else { return nil }
        return v.u32(0)
    }

    /// USE-CANDIDATE (RFC 8445 section 7.1.2): present or not; its value is
    /// empty and any bytes there are ignored.
    @inlinable
    public var useCandidate: Bool { attribute(.useCandidate) != nil }

    /// ICE-CONTROLLING's tie-breaker (RFC 8445 section 7.1.3), nil unless
    /// present with 8 bytes.
    @inlinable
    public var iceControlling: UInt64? {
        guard let v = attribute(.iceControlling)?.value, v.count == 8 else { return nil }
        return v.u64(0)
    }

    /// ICE-CONTROLLED's tie-breaker (RFC 8445 section 7.1.3), nil unless
    /// present with 8 bytes.
    @inlinable
    public var iceControlled: UInt64? {
        guard let v = attribute(.iceControlled)?.value, v.count == 8 else { return nil }
        return v.u64(0)
    }

    /// ERROR-CODE (RFC 5389 section 15.6): code = class * 100 + number, and
    /// the UTF-8 reason phrase. Nil unless present, at least 4 bytes, class
    /// 3...6 and number 0...99 as the RFC requires.
    ///
    /// ```
    ///  0                   1                   2                   3
    ///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
    /// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    /// |           Reserved, should be 0         |Class|     Number    |
    /// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    /// |      Reason Phrase (variable)                                ..
    /// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    /// ```
    @inlinable
    public var errorCode: (code: Int, reason: UnsafeRawBufferPointer)? {
        guard let v = attribute(.errorCode)?.value, v.count >= 4 else { return nil }
        let errorClass = Int(v.u8(2) & 0x07)
        let number = Int(v.u8(3))
        guard (3...6).contains(errorClass), number < 100 else { return nil }
        return (errorClass * 100 + number, UnsafeRawBufferPointer(rebasing: v[4...]))
    }

    /// XOR-MAPPED-ADDRESS (RFC 5389 section 15.2), un-XOR'd: the reflexive
    /// address a Binding success response reports.
    @inlinable
    public var xorMappedAddress: STUNAddress? {
        guard let v = attribute(.xorMappedAddress)?.value else { return nil }
        return STUNAddress(attributeValue: v, xor: transactionID)
    }

    /// MAPPED-ADDRESS (RFC 5389 section 15.1), kept for RFC 3489 servers.
    @inlinable
    public var mappedAddress: STUNAddress? {
        guard let v = attribute(.mappedAddress)?.value else { return nil }
        return STUNAddress(attributeValue: v, xor: nil)
    }

    /// SOFTWARE (RFC 5389 section 15.10), UTF-8 bytes.
    @inlinable
    public var software: UnsafeRawBufferPointer? { attribute(.software)?.value }

    /// REALM (RFC 5389 section 15.7), UTF-8 bytes.
    @inlinable
    public var realm: UnsafeRawBufferPointer? { attribute(.realm)?.value }

    /// NONCE (RFC 5389 section 15.8).
    @inlinable
    public var nonce: UnsafeRawBufferPointer? { attribute(.nonce)?.value }

    /// The first MESSAGE-INTEGRITY's value (20 bytes when well formed).
    @inlinable
    public var messageIntegrity: UnsafeRawBufferPointer? {
        integrityOffset < 0 ? nil : attributeView(at: integrityOffset).value
    }

    /// The final FINGERPRINT's value, nil unless present, last and 4 bytes.
    @inlinable
    public var fingerprint: UInt32? {
        guard fingerprintOffset >= 0, bytes.u16(fingerprintOffset + 2) == 4 else { return nil }
        return bytes.u32(fingerprintOffset + 4)
    }

    // MARK: Integrity

    /// Checks MESSAGE-INTEGRITY (RFC 5389 section 15.4): HMAC-SHA1 with
    /// `key` over the message up to the attribute, with the header's length
    /// field set as if the message ended right after MESSAGE-INTEGRITY. For
    /// ICE (short-term credentials) the key is the password's UTF-8 bytes;
    /// for long-term credentials MD5(username ":" realm ":" password).
    ///
    /// Throws `.invalidField` when MESSAGE-INTEGRITY is absent or not 20
    /// bytes, `.integrityMismatch` when the MAC differs (compared in constant
    /// time so the comparison leaks no prefix length).
    public func verifyMessageIntegrity(key: UnsafeRawBufferPointer) throws(PacketError) {
        let at = integrityOffset
        guard at >= 0, bytes.u16(at + 2) == 20 else { throw .invalidField }
        // The HMAC is one-shot, so the header with its patched length must
        // precede the covered bytes in one buffer: copy the prefix into
        // scratch (stack for a typical 100-byte request).
        let matches = withUnsafeTemporaryAllocation(byteCount: at, alignment: 1) { scratch -> Bool in
            guard let dst = scratch.baseAddress, let src = bytes.baseAddress else { return false }
            dst.copyMemory(from: src, byteCount: at)
            scratch.setU16(UInt16(truncatingIfNeeded: at + 24 - STUNMessageView.headerSize), at: 2)
            var mac: (UInt64, UInt64, UInt32) = (0, 0, 0)
            return withUnsafeMutableBytes(of: &mac) { out -> Bool in
                guard STUNHMAC.sha1(key: key, data: UnsafeRawBufferPointer(scratch), into: out) else { return false }
                return STUNHMAC.constantTimeEqual(
                    UnsafeRawBufferPointer(out), UnsafeRawBufferPointer(rebasing: bytes[(at + 4)..<(at + 24)]))
            }
        }
        guard matches else { throw .integrityMismatch }
    }

    /// `verifyMessageIntegrity(key:)` with a password's UTF-8 bytes as key.
    public func verifyMessageIntegrity(password: String) throws(PacketError) {
        try withUTF8Bytes(of: password) { key throws(PacketError) in try verifyMessageIntegrity(key: key) }
    }

    /// Checks FINGERPRINT (RFC 5389 section 15.5): the CRC-32 of the message
    /// before the attribute XOR 0x5354554e. Throws `.invalidField` when there
    /// is no FINGERPRINT, it is not the last attribute or not 4 bytes, and
    /// `.fingerprintMismatch` when the CRC differs.
    public func verifyFingerprint() throws(PacketError) {
        guard let expected = fingerprint else { throw .invalidField }
        // FINGERPRINT is last, so the header's length already ends at its end.
        let crc = CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<fingerprintOffset]))
        guard crc ^ STUNMessageView.fingerprintXOR == expected else { throw .fingerprintMismatch }
    }
}

/// One attribute TLV: its type and its value without padding.
/// Not `Sendable`: `value` borrows the message's memory.
public struct STUNAttributeView {
    public let type: STUNAttributeType
    public let value: UnsafeRawBufferPointer

    @inlinable
    init(type: STUNAttributeType, value: UnsafeRawBufferPointer) {
        self.type = type
        self.value = value
    }

    /// The TLV whose header starts at `offset` of a message that
    /// `STUNMessageView.init(validating:)` checked: the one place a TLV is
    /// decoded.
    @inlinable
    init(tlvIn bytes: UnsafeRawBufferPointer, at offset: Int) {
        let valueLength = Int(bytes.u16(offset + 2))
        self.init(
            type: STUNAttributeType(rawValue: bytes.u16(offset)),
            value: UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + 4 + valueLength)]))
    }
}

/// The attributes of a validated message, in order, without an array.
public struct STUNAttributeSequence: Sequence {
    @usableFromInline let bytes: UnsafeRawBufferPointer

    @inlinable
    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    @inlinable
    public func makeIterator() -> Iterator {
        Iterator(bytes: bytes, offset: STUNMessageView.headerSize, end: bytes.count)
    }

    public struct Iterator: IteratorProtocol {
        @usableFromInline let bytes: UnsafeRawBufferPointer
        @usableFromInline var offset: Int
        /// Where to stop: the end of the message, or just past
        /// MESSAGE-INTEGRITY for `STUNMessageView.attribute(_:)`. Always an
        /// attribute boundary the view validated, at most `bytes.count`.
        @usableFromInline let end: Int

        @inlinable
        init(bytes: UnsafeRawBufferPointer, offset: Int, end: Int) {
            self.bytes = bytes
            self.offset = offset
            self.end = end
        }

        /// Reads only what `STUNMessageView.init(validating:)` checked.
        @inlinable
        public mutating func next() -> STUNAttributeView? {
            guard offset < end else { return nil }
            let view = STUNAttributeView(tlvIn: bytes, at: offset)
            offset += 4 + STUNMessageView.padded(view.value.count)
            return view
        }
    }
}

/// Runs `body` over `string`'s UTF-8 bytes and keeps its typed error:
/// `String.withUTF8` only rethrows untyped errors, so the typed one travels
/// out as a value. A native String is contiguous UTF-8, so this copies nothing.
func withUTF8Bytes<Value>(
    of string: String, _ body: (UnsafeRawBufferPointer) throws(PacketError) -> Value
) throws(PacketError) -> Value {
    var string = string
    let outcome = string.withUTF8 { utf8 -> Result<Value, PacketError> in
        do throws(PacketError) {
            return .success(try body(UnsafeRawBufferPointer(utf8)))
        } catch {
            return .failure(error)
        }
    }
    return try outcome.get()
}

/// HMAC-SHA1 through OpenSSL and a constant-time compare, shared by the view
/// (to verify) and the writer (to sign).
enum STUNHMAC {
    /// Writes the 20-byte HMAC-SHA1 of `data` under `key` to `out` (at least
    /// 20 bytes). False only if OpenSSL fails.
    static func sha1(key: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer)
        -> Bool
    {
        guard out.count >= 20, let outBase = out.baseAddress else { return false }
        // OpenSSL 3's HMAC() treats a NULL key as "no key set" and fails, so an
        // empty key (legal, if silly) is passed as a pointer to a dummy byte.
        var dummy: UInt8 = 0
        return withUnsafeMutablePointer(to: &dummy) { dummyPointer in
            let keyPointer = key.baseAddress ?? UnsafeRawPointer(dummyPointer)
            let dataPointer = data.baseAddress ?? UnsafeRawPointer(dummyPointer)
            return vroom_hmac_sha1(
                keyPointer, key.count, dataPointer, data.count, outBase.assumingMemoryBound(to: UInt8.self)) == 1
        }
    }

    /// Equal lengths and bytes, in time independent of where they differ.
    static func constantTimeEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        guard let pa = a.baseAddress, let pb = b.baseAddress else { return a.count == 0 }
        return CRYPTO_memcmp(pa, pb, a.count) == 0
    }
}
