/// The state of one PeerConnection's transport (ICE + DTLS-SRTP).
enum MediaConnectionState: Hashable, Sendable {
    /// No answer applied yet.
    case new
    /// ICE checks or the DTLS handshake under way.
    case connecting
    /// SRTP keyed: media flows.
    case connected
    /// 53405 (ICE failed / consent lost) or 53407 (DTLS failed, fingerprint
    /// mismatch). Final until an ICE restart.
    case failed(code: Int, message: String)
}
