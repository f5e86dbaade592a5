/// What `PeerTransport.receive` did with one datagram.
public enum TransportReceiveResult: Sendable, Hashable {
    /// STUN or DTLS, consumed; answers may be waiting in `pollTransmit()`.
    case handled
    /// SRTP unprotected in place: the RTP packet is `buffer[0..<length]`.
    case rtp(length: Int)
    /// SRTCP unprotected in place: the compound RTCP is `buffer[0..<length]`.
    case rtcp(length: Int)
    /// Dropped and counted.
    case dropped(TransportDropReason)
}
