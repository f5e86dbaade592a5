import Packets

/// What a PeerTransport reports to the media worker (`pollEvent()`).
public enum TransportEvent: Sendable, Equatable {
    /// An authenticated STUN check came from this address, on this path,
    /// for the first time.
    case addressValidated(TransportPath)
    /// Media now goes to this address on this path: the latest nominated
    /// one (a check with USE-CANDIDATE, or our own check's success in
    /// controlling mode).
    case selected(TransportPath)
    /// DTLS finished, the fingerprint matched, SRTP is keyed with this profile.
    case connected(SRTPProfile)
    /// The transport is dead: 53405 (ICE, consent) or 53407 (DTLS).
    case failed(WebRTCError)
    /// The peer closed DTLS (close_notify): it left.
    case closedByPeer
}
