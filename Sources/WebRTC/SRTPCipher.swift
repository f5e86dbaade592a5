/// One direction (protect or unprotect) of one profile's transform: keyed
/// OpenSSL contexts for SRTP and SRTCP, made once and reused for every
/// packet. `SRTPContext` parses packets, tracks indices and replays; the
/// cipher only encrypts, decrypts and authenticates at the offsets it is
/// given, with the IVs of its RFC.
///
/// All pointers are into the caller's packet buffer, whose bounds
/// `SRTPContext` has checked (including the trailer room).
protocol SRTPCipher: AnyObject {
    /// Bytes of authentication tag after an SRTP packet.
    var tagLength: Int { get }
    /// Where SRTCP's E flag and index sit, counted back from the end of an
    /// SRTCP packet: after the tag for AES-GCM, before it for AES-CM.
    var rtcpIndexOffsetFromEnd: Int { get }

    /// Encrypts the payload into `packet + headerLength`: first the
    /// `inPlaceLength` bytes already there, then `payloadLength` bytes from
    /// `payload` (which may be where they go: in place); authenticates
    /// `packet[0..<headerLength]` with them, and the tag follows.
    func sealRTP(
        packet: UnsafeMutableRawPointer, headerLength: Int, inPlaceLength: Int, payload: UnsafeRawPointer,
        payloadLength: Int, ssrc: UInt32, index: UInt64
    ) -> Bool

    /// Verifies the tag of `packet[0..<length]` (tag included) and decrypts
    /// the payload in place; false when the tag does not verify.
    func openRTP(packet: UnsafeMutableRawPointer, headerLength: Int, length: Int, ssrc: UInt32, index: UInt64) -> Bool

    /// Encrypts the (compound) RTCP packet `packet[0..<length]` after its
    /// first 8 bytes, appends E = 1 and `index`, and the tag; returns the
    /// SRTCP length, or nil on an OpenSSL failure.
    func sealRTCP(packet: UnsafeMutableRawPointer, length: Int, ssrc: UInt32, index: UInt32) -> Int?

    /// Verifies SRTCP `packet[0..<length]` and, when `encrypted` (the E
    /// flag), decrypts it in place; returns the RTCP length, nil when the
    /// tag does not verify.
    func openRTCP(packet: UnsafeMutableRawPointer, length: Int, ssrc: UInt32, index: UInt32, encrypted: Bool) -> Int?
}

extension UnsafeMutableRawPointer {
    /// Stores `value` big-endian at `offset` (unaligned).
    @inline(__always)
    func storeBigEndian<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: T.self)
    }

    /// XORs `value` big-endian into the bytes at `offset`.
    @inline(__always)
    func xorBigEndian<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        let current = loadUnaligned(fromByteOffset: offset, as: T.self)
        storeBytes(of: current ^ value.bigEndian, toByteOffset: offset, as: T.self)
    }
}

extension UnsafeRawPointer {
    @inline(__always)
    func loadBigEndian<T: FixedWidthInteger>(at offset: Int, as type: T.Type = T.self) -> T {
        T(bigEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
