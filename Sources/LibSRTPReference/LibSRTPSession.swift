import CSRTP

/// libsrtp2 wants `srtp_init()` exactly once per process before any session:
/// a second call fails (bad_param, its debug module is already loaded) and
/// two concurrent calls race on its globals. A global `let` is initialised
/// once, atomically (swift_once), on first use; every test and benchmark in
/// the process goes through `LibSRTPSession.libraryStatus`.
private let srtpLibraryStatus: srtp_err_status_t = srtp_init()

/// One libsrtp2 session (one direction), the reference Vroom's own SRTP
/// (WebRTC's `SRTPContext`, on OpenSSL) is checked and measured against.
/// For tests and benchmarks only: no shipped product links libsrtp2
/// (ImportGraphTests checks it).
///
/// Not `Sendable`: libsrtp sessions are not thread-safe.
public final class LibSRTPSession {
    /// SRTP_MAX_TRAILER_LEN: room protect needs after a packet.
    public static let maximumTrailerLength = Int(vroom_srtp_max_trailer_len)

    /// The result of the process's one `srtp_init()` (0 = ok).
    public static var libraryStatus: UInt32 { srtpLibraryStatus.rawValue }

    private let session: srtp_t

    /// `gcm`: AEAD_AES_128_GCM, else AES_CM_128_HMAC_SHA1_80; `key` is
    /// master key || salt. Sending sessions allow repeated sequence numbers
    /// (NACK retransmissions), receiving ones check replays strictly.
    public init?(gcm: Bool, key: [UInt8], outbound: Bool, replayWindow: Int = 1024) {
        guard srtpLibraryStatus == srtp_err_status_ok else { return nil }
        var policy = srtp_policy_t()
        if gcm {
            vroom_srtp_policy_aes_gcm_128(&policy.rtp)
            vroom_srtp_policy_aes_gcm_128(&policy.rtcp)
        } else {
            vroom_srtp_policy_aes_cm_128_hmac_sha1_80(&policy.rtp)
            vroom_srtp_policy_aes_cm_128_hmac_sha1_80(&policy.rtcp)
        }
        policy.ssrc.type = outbound ? ssrc_any_outbound : ssrc_any_inbound
        policy.window_size = UInt(replayWindow)
        policy.allow_repeat_tx = outbound ? 1 : 0
        policy.next = nil
        var created: srtp_t?
        var keyCopy = key  // libsrtp reads the key during srtp_create only
        let status = keyCopy.withUnsafeMutableBufferPointer { bytes -> srtp_err_status_t in
            policy.key = bytes.baseAddress
            return srtp_create(&created, &policy)
        }
        guard status == srtp_err_status_ok, let created else { return nil }
        session = created
    }

    deinit {
        srtp_dealloc(session)
    }

    /// Protects `packet[0..<length]` in place (the buffer needs
    /// `maximumTrailerLength` spare bytes); the SRTP length, or nil.
    public func protect(_ packet: UnsafeMutableRawPointer, length: Int, rtcp: Bool) -> Int? {
        var octets = Int32(length)
        let status = rtcp ? srtp_protect_rtcp(session, packet, &octets) : srtp_protect(session, packet, &octets)
        return status == srtp_err_status_ok ? Int(octets) : nil
    }

    /// Unprotects in place: the plaintext length, or libsrtp's error code
    /// (7 auth_fail, 9 replay_fail, 10 replay_old).
    public func unprotect(_ packet: UnsafeMutableRawPointer, length: Int, rtcp: Bool) -> Result<Int, LibSRTPError> {
        var octets = Int32(length)
        let status = rtcp ? srtp_unprotect_rtcp(session, packet, &octets) : srtp_unprotect(session, packet, &octets)
        return status == srtp_err_status_ok ? .success(Int(octets)) : .failure(LibSRTPError(code: status.rawValue))
    }
}

/// A libsrtp2 error status (`srtp_err_status_t`).
public struct LibSRTPError: Error, Equatable, Sendable {
    public var code: UInt32
    public static let authentication = LibSRTPError(code: 7)
    public static let replay = LibSRTPError(code: 9)
    public static let replayOld = LibSRTPError(code: 10)
}
