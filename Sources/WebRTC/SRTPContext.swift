/// Why `SRTPContext` refused to unprotect a packet.
public enum SRTPDropReason: Sendable, Hashable {
    /// Not an SRTP/SRTCP packet we can parse (too short, not version 2, a
    /// header longer than the packet), or no room for it.
    case malformed
    /// The authentication tag does not verify (wrong key, tampered bytes).
    case authentication
    /// Already received, or older than the replay window (RFC 3711 section 3.3.2).
    case replay
}

/// The outcome of unprotecting one packet in place.
public enum SRTPUnprotectResult: Sendable, Hashable {
    /// The plaintext is now `buffer[0..<length]`.
    case plaintext(length: Int)
    case dropped(SRTPDropReason)
}

/// SRTP and SRTCP (RFC 3711; RFC 7714 for AES-GCM) for one PeerConnection,
/// on OpenSSL (ECB contexts under both counter modes, SHA-1 for AES-CM's
/// HMAC, the GCM128 mode code for AES-GCM's): the session keys are derived once from the DTLS export
/// (`SRTPKeyDerivation`), each direction keeps its keyed cipher contexts
/// (`SRTPCipherAESGCM`, `SRTPCipherAESCM`) for its whole life, and per SSRC
/// the rollover counter, the SRTCP index and the replay windows live in
/// fixed tables (`SRTPStreamTable`): protecting or unprotecting a packet
/// allocates nothing.
///
/// Every call works on the caller's buffer, which must have
/// `maximumTrailerLength` spare bytes after the packet (the tag and the
/// SRTCP index need at most 20 of them): in place, or, to forward, with the
/// payload's tail encrypted straight in from the packet it came from
/// (`protectRTP(_:length:appending:)`).
///
/// Sending: each SSRC's index comes from its sequence number and the highest
/// sent (so a NACK retransmission of an old sequence number gets its
/// original index: libsrtp's `allow_repeat_tx`). Receiving: a packet is
/// checked against its SSRC's replay window before and recorded after its
/// tag verifies; only authenticated packets create a stream, at most 64 of
/// them (the least recently used goes).
///
/// Not `Sendable`: one media worker thread owns it.
public final class SRTPContext {
    /// Room protect needs after a packet: libsrtp's SRTP_MAX_TRAILER_LEN,
    /// kept because callers size their slots with it (ours needs 20).
    public static let maximumTrailerLength = 144
    /// Replay window in packets (`SRTPReplayWindow`): libsrtp's default is
    /// 128; libwebrtc uses 1024 so that video reordered by up to ~1 s at
    /// 1000 pps still plays.
    public static let replayWindow = SRTPReplayWindow.size
    /// Receiving streams kept (by SSRC): a participant sends a few (audio,
    /// video, RTX, simulcast layers: about 10); 64 leaves room for churn.
    static let inboundStreamLimit = 64
    /// Sending streams kept: one per DownTrack and its RTX, plus RTCP
    /// senders: 1024 covers a subscriber of 500 video tracks.
    static let outboundStreamLimit = 1024

    public let profile: SRTPProfile
    /// Kept for the context's life (`let`: reading them per packet takes no
    /// retain); `close()` only stops their use.
    private let sender: any SRTPCipher
    private let receiver: any SRTPCipher
    private var isClosed = false
    private var outbound = SRTPStreamTable<SRTPOutboundStream>(initialCapacity: 16, limit: outboundStreamLimit)
    private var inbound = SRTPStreamTable<SRTPInboundStream>(initialCapacity: 16, limit: inboundStreamLimit)

    /// Derives both directions' keys from `material` (key || salt each).
    /// Throws when a key has the wrong length for the profile or OpenSSL
    /// refuses it.
    public convenience init(material: SRTPKeyingMaterial) throws(WebRTCError) {
        let profile = material.profile
        let expected = profile.keyLength + profile.saltLength
        guard material.local.count == expected, material.remote.count == expected else {
            throw .dtlsTransport("SRTP key length \(material.local.count)/\(material.remote.count), expected \(expected)")
        }
        guard let local = SRTPKeyDerivation.sessionKeys(profile: profile, master: material.local),
            let remote = SRTPKeyDerivation.sessionKeys(profile: profile, master: material.remote)
        else { throw .dtlsTransport("SRTP key derivation failed") }
        try self.init(profile: profile, local: local, remote: remote)
    }

    /// From session keys directly (the RFC test vectors give those).
    init(
        profile: SRTPProfile, local: (rtp: SRTPSessionKeys, rtcp: SRTPSessionKeys),
        remote: (rtp: SRTPSessionKeys, rtcp: SRTPSessionKeys)
    ) throws(WebRTCError) {
        self.profile = profile
        let ciphers: (sender: (any SRTPCipher)?, receiver: (any SRTPCipher)?)
        switch profile {
        case .aeadAES128GCM:
            ciphers = (SRTPCipherAESGCM(rtp: local.rtp, rtcp: local.rtcp),
                       SRTPCipherAESGCM(rtp: remote.rtp, rtcp: remote.rtcp))
        case .aes128CMSHA1_80:
            ciphers = (SRTPCipherAESCM(rtp: local.rtp, rtcp: local.rtcp), SRTPCipherAESCM(rtp: remote.rtp, rtcp: remote.rtcp))
        }
        guard let sender = ciphers.sender, let receiver = ciphers.receiver else {
            throw .dtlsTransport("OpenSSL refused an SRTP key")
        }
        self.sender = sender
        self.receiver = receiver
    }

    /// Later calls fail (`nil` / `.malformed`); both directions' cipher
    /// contexts are freed with the context.
    public func close() {
        isClosed = true
    }

    // MARK: Protect

    /// Encrypts and authenticates the RTP packet `buffer[0..<length]` in
    /// place; returns the SRTP length, or nil when the buffer lacks the
    /// `maximumTrailerLength` spare bytes or it is not an RTP packet.
    public func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> Int? {
        guard let base = buffer.baseAddress, length > 0, length <= Int(Int32.max) - SRTPContext.maximumTrailerLength,
            buffer.count - length >= SRTPContext.maximumTrailerLength
        else { return nil }
        return seal(base, written: length, tail: UnsafeRawPointer(base + length), tailLength: 0)
    }

    /// Protects the RTP packet made of `buffer[0..<length]` (its header, at
    /// least, and maybe the start of its payload) followed by `tail`: the
    /// tail is encrypted straight from where it is into `buffer` after
    /// `length` (one pass over it, no copy first), and `tail` is left
    /// unchanged. `buffer` needs room for the whole packet plus
    /// `maximumTrailerLength`, and must not overlap `tail`. Returns the SRTP
    /// length in `buffer`.
    public func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int, appending tail: UnsafeRawBufferPointer)
        -> Int?
    {
        guard let base = buffer.baseAddress, length > 0, tail.count <= Int(Int32.max),
            length <= Int(Int32.max) - SRTPContext.maximumTrailerLength - tail.count,
            buffer.count - length - tail.count >= SRTPContext.maximumTrailerLength
        else { return nil }
        return seal(base, written: length, tail: tail.baseAddress ?? UnsafeRawPointer(base + length), tailLength: tail.count)
    }

    /// The one protect path: the packet's first `written` bytes (the whole
    /// header among them) are in `packet`, the rest at `tail`.
    @inline(__always)
    private func seal(_ packet: UnsafeMutableRawPointer, written: Int, tail: UnsafeRawPointer, tailLength: Int) -> Int? {
        let header = UnsafeRawPointer(packet)
        guard !isClosed, let headerLength = SRTPContext.rtpHeaderLength(header, length: written) else { return nil }
        let ssrc: UInt32 = header.loadBigEndian(at: 8)
        let sequence: UInt16 = header.loadBigEndian(at: 2)
        let slot = outbound.slot(of: ssrc) ?? outbound.insert(ssrc, SRTPOutboundStream())
        let entry = outbound.entry(at: slot)
        let highest = entry.pointee.state.highestRTPIndex
        let index = SRTPPacketIndex.estimate(sequence: sequence, highest: highest)
        if highest.map({ index > $0 }) ?? true { entry.pointee.state.highestRTPIndex = index }
        guard sender.sealRTP(
            packet: packet, headerLength: headerLength, inPlaceLength: written &- headerLength, payload: tail,
            payloadLength: tailLength, ssrc: ssrc, index: index)
        else { return nil }
        return written &+ tailLength &+ sender.tagLength
    }

    /// As `protectRTP` for a (compound) RTCP packet: SRTCP adds the E flag +
    /// index (4 bytes) and the tag. Nil once the SSRC's 2^31 SRTCP indices
    /// are spent (RFC 3711 section 9.2: rekey; years at 10 packets/s).
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> Int? {
        guard !isClosed, let base = buffer.baseAddress, length >= 8,
            length <= Int(Int32.max) - SRTPContext.maximumTrailerLength,
            buffer.count - length >= SRTPContext.maximumTrailerLength, base.load(as: UInt8.self) >> 6 == 2
        else { return nil }
        let ssrc: UInt32 = UnsafeRawPointer(base).loadBigEndian(at: 4)
        let slot = outbound.slot(of: ssrc) ?? outbound.insert(ssrc, SRTPOutboundStream())
        let entry = outbound.entry(at: slot)
        let index = entry.pointee.state.nextRTCPIndex
        guard index <= 0x7FFF_FFFF else { return nil }
        entry.pointee.state.nextRTCPIndex = index + 1
        return sender.sealRTCP(packet: base, length: length, ssrc: ssrc, index: index)
    }

    // MARK: Unprotect

    /// Authenticates and decrypts the SRTP packet `buffer[0..<length]` in
    /// place; on success the RTP packet is `buffer[0..<length]` of the result.
    public func unprotectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> SRTPUnprotectResult {
        guard !isClosed, let base = buffer.baseAddress, length > 0, length <= buffer.count,
            let headerLength = SRTPContext.rtpHeaderLength(UnsafeRawPointer(base), length: length),
            length - headerLength >= receiver.tagLength
        else { return .dropped(.malformed) }
        let ssrc: UInt32 = UnsafeRawPointer(base).loadBigEndian(at: 8)
        let sequence: UInt16 = UnsafeRawPointer(base).loadBigEndian(at: 2)
        let known = inbound.slot(of: ssrc)
        var window = known.map { inbound.entry(at: $0).pointee.state.rtp } ?? SRTPReplayWindow()
        let index = SRTPPacketIndex.estimate(sequence: sequence, highest: window.isEmpty ? nil : window.highest)
        guard window.check(index) == .new else { return .dropped(.replay) }
        guard receiver.openRTP(packet: base, headerLength: headerLength, length: length, ssrc: ssrc, index: index)
        else { return .dropped(.authentication) }
        // Authenticated: only now may the stream's state move (or the stream appear).
        if let known {
            inbound.entry(at: known).pointee.state.rtp.record(index)
        } else {
            window.record(index)
            _ = inbound.insert(ssrc, SRTPInboundStream(rtp: window))
        }
        return .plaintext(length: length - receiver.tagLength)
    }

    /// As `unprotectRTP` for SRTCP (either E flag).
    public func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> SRTPUnprotectResult {
        guard !isClosed, let base = buffer.baseAddress, length <= buffer.count,
            length >= 8 + 4 + receiver.tagLength, base.load(as: UInt8.self) >> 6 == 2
        else { return .dropped(.malformed) }
        let packet = UnsafeRawPointer(base)
        let ssrc: UInt32 = packet.loadBigEndian(at: 4)
        let word: UInt32 = packet.loadBigEndian(at: length - receiver.rtcpIndexOffsetFromEnd)
        let index = word & 0x7FFF_FFFF
        let known = inbound.slot(of: ssrc)
        var window = known.map { inbound.entry(at: $0).pointee.state.rtcp } ?? SRTPReplayWindow()
        guard window.check(UInt64(index)) == .new else { return .dropped(.replay) }
        guard let plainLength = receiver.openRTCP(
            packet: base, length: length, ssrc: ssrc, index: index, encrypted: word & 0x8000_0000 != 0)
        else { return .dropped(.authentication) }
        if let known {
            inbound.entry(at: known).pointee.state.rtcp.record(UInt64(index))
        } else {
            window.record(UInt64(index))
            _ = inbound.insert(ssrc, SRTPInboundStream(rtcp: window))
        }
        return .plaintext(length: plainLength)
    }

    /// The RTP header's length (RFC 3550 section 5.1: 12 bytes, the CSRCs,
    /// the extension), or nil when `packet[0..<length]` is not version 2 or
    /// is shorter than its header.
    @inline(__always)
    static func rtpHeaderLength(_ packet: UnsafeRawPointer, length: Int) -> Int? {
        guard length >= 12 else { return nil }
        let first = packet.load(as: UInt8.self)
        guard first >> 6 == 2 else { return nil }
        var headerLength = 12 + 4 * Int(first & 0x0F)
        if first & 0x10 != 0 {
            guard length >= headerLength + 4 else { return nil }
            let words: UInt16 = packet.loadBigEndian(at: headerLength + 2)
            headerLength += 4 + 4 * Int(words)
        }
        return headerLength <= length ? headerLength : nil
    }
}
