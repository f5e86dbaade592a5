import CSRTP

/// libsrtp2 wants `srtp_init()` exactly once per process before any session:
/// a second call fails (bad_param, its debug module is already loaded) and
/// two concurrent calls race on its globals. A global `let` is initialised
/// once, atomically (swift_once), on first use; everything in the process
/// goes through `SRTPContext.libraryStatus`.
private let srtpLibraryStatus: srtp_err_status_t = srtp_init()

/// Why `SRTPContext` refused to unprotect a packet.
public enum SRTPDropReason: Sendable, Hashable {
    /// Not a packet libsrtp can parse, or no room for it.
    case malformed
    /// The authentication tag does not verify (wrong key, tampered bytes):
    /// libsrtp's `srtp_err_status_auth_fail` (7).
    case authentication
    /// Already received, or older than the replay window:
    /// `srtp_err_status_replay_fail` (9) / `replay_old` (10).
    case replay
}

/// The outcome of unprotecting one packet in place.
public enum SRTPUnprotectResult: Sendable, Hashable {
    /// The plaintext is now `buffer[0..<length]`.
    case plaintext(length: Int)
    case dropped(SRTPDropReason)
}

/// SRTP and SRTCP (RFC 3711, RFC 7714 for AES-GCM) for one PeerConnection:
/// one outbound and one inbound libsrtp session, keyed from the DTLS export.
///
/// Every call works in place on the caller's buffer and allocates nothing of
/// ours (libsrtp itself, built on NSS in Debian, allocates inside AES-GCM).
/// The buffer must have `SRTPContext.maximumTrailerLength` (144) spare bytes
/// after the packet for the tag and the SRTCP index.
///
/// Not `Sendable`: libsrtp sessions are not thread-safe; one media worker
/// thread owns it.
public final class SRTPContext {
    /// SRTP_MAX_TRAILER_LEN: room protect needs after a packet.
    public static let maximumTrailerLength = Int(vroom_srtp_max_trailer_len)
    /// Replay window in packets: libsrtp's default is 128; libwebrtc uses
    /// 1024 so that video reordered by up to ~1 s at 1000 pps still plays.
    public static let replayWindow = 1024

    public let profile: SRTPProfile
    /// `srtp_t`, owned; nil after `close()`.
    private var outbound: srtp_t?
    private var inbound: srtp_t?

    /// Two sessions from `material` (key || salt each). Throws 53407 when a
    /// key has the wrong length for the profile or libsrtp refuses it.
    /// The result of the process's one `srtp_init()` (run on first use).
    public static var libraryStatus: srtp_err_status_t { srtpLibraryStatus }

    public init(material: SRTPKeyingMaterial) throws(WebRTCError) {
        let profile = material.profile
        let expected = profile.keyLength + profile.saltLength
        guard material.local.count == expected, material.remote.count == expected else {
            throw .dtlsTransport("SRTP key length \(material.local.count)/\(material.remote.count), expected \(expected)")
        }
        guard srtpLibraryStatus == srtp_err_status_ok else {
            throw .dtlsTransport("srtp_init failed with \(srtpLibraryStatus.rawValue)")
        }
        self.profile = profile
        self.outbound = try SRTPContext.session(profile: profile, key: material.local, outbound: true)
        do {
            self.inbound = try SRTPContext.session(profile: profile, key: material.remote, outbound: false)
        } catch {
            srtp_dealloc(outbound)
            throw error
        }
    }

    private static func session(profile: SRTPProfile, key: [UInt8], outbound: Bool) throws(WebRTCError) -> srtp_t {
        var policy = srtp_policy_t()
        switch profile {
        case .aeadAES128GCM:
            vroom_srtp_policy_aes_gcm_128(&policy.rtp)
            vroom_srtp_policy_aes_gcm_128(&policy.rtcp)
        case .aes128CMSHA1_80:
            vroom_srtp_policy_aes_cm_128_hmac_sha1_80(&policy.rtp)
            vroom_srtp_policy_aes_cm_128_hmac_sha1_80(&policy.rtcp)
        }
        policy.ssrc.type = outbound ? ssrc_any_outbound : ssrc_any_inbound
        policy.window_size = UInt(replayWindow)
        // NACK answers resend a sequence number with the same bytes: allowed
        // on the sending side only (RFC 4585 retransmission, not a replay).
        policy.allow_repeat_tx = outbound ? 1 : 0
        policy.next = nil
        var session: srtp_t?
        var keyCopy = key  // libsrtp reads the key during srtp_create only
        let status = keyCopy.withUnsafeMutableBufferPointer { bytes -> srtp_err_status_t in
            policy.key = bytes.baseAddress
            return srtp_create(&session, &policy)
        }
        guard status == srtp_err_status_ok, let session else {
            throw .dtlsTransport("srtp_create failed with \(status.rawValue)")
        }
        return session
    }

    deinit {
        close()
    }

    /// Frees both sessions; later calls fail (`nil` / `.malformed`).
    public func close() {
        if let outbound { srtp_dealloc(outbound) }
        if let inbound { srtp_dealloc(inbound) }
        outbound = nil
        inbound = nil
    }

    // MARK: Protect

    /// Encrypts and authenticates the RTP packet `buffer[0..<length]` in
    /// place; returns the SRTP length, or nil when the buffer lacks the 144
    /// spare bytes or libsrtp refuses (e.g. not an RTP header).
    @inline(__always)
    public func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> Int? {
        protect(buffer, length: length, rtcp: false)
    }

    /// As `protectRTP` for a (compound) RTCP packet: SRTCP adds the E flag +
    /// index (4 bytes) and the tag.
    @inline(__always)
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> Int? {
        protect(buffer, length: length, rtcp: true)
    }

    private func protect(_ buffer: UnsafeMutableRawBufferPointer, length: Int, rtcp: Bool) -> Int? {
        guard let outbound, let base = buffer.baseAddress, length > 0,
            length <= Int(Int32.max) - SRTPContext.maximumTrailerLength,
            buffer.count - length >= SRTPContext.maximumTrailerLength
        else { return nil }
        var octets = Int32(length)
        let status = rtcp ? srtp_protect_rtcp(outbound, base, &octets) : srtp_protect(outbound, base, &octets)
        return status == srtp_err_status_ok ? Int(octets) : nil
    }

    // MARK: Unprotect

    /// Authenticates and decrypts the SRTP packet `buffer[0..<length]` in
    /// place; on success the RTP packet is `buffer[0..<length]` of the result.
    @inline(__always)
    public func unprotectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> SRTPUnprotectResult {
        unprotect(buffer, length: length, rtcp: false)
    }

    /// As `unprotectRTP` for SRTCP.
    @inline(__always)
    public func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> SRTPUnprotectResult {
        unprotect(buffer, length: length, rtcp: true)
    }

    private func unprotect(_ buffer: UnsafeMutableRawBufferPointer, length: Int, rtcp: Bool) -> SRTPUnprotectResult {
        guard let inbound, let base = buffer.baseAddress, length > 0, length <= buffer.count,
            length <= Int(Int32.max)
        else { return .dropped(.malformed) }
        var octets = Int32(length)
        let status = rtcp ? srtp_unprotect_rtcp(inbound, base, &octets) : srtp_unprotect(inbound, base, &octets)
        switch status {
        case srtp_err_status_ok: return .plaintext(length: Int(octets))
        case srtp_err_status_auth_fail: return .dropped(.authentication)
        case srtp_err_status_replay_fail, srtp_err_status_replay_old: return .dropped(.replay)
        default: return .dropped(.malformed)
        }
    }
}
