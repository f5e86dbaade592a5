/// What the sending side keeps per SSRC: the highest SRTP index protected
/// (its rollover counter; RFC 3711 section 3.3.1) and the next SRTCP index
/// (section 3.4: a 31-bit counter per stream, from 1 as libsrtp does).
///
/// No replay list: a sender may protect a sequence number again, e.g. to
/// answer a NACK (libsrtp's `allow_repeat_tx`); it gets the index that
/// sequence number had, so the bytes match the first transmission.
struct SRTPOutboundStream {
    var highestRTPIndex: UInt64?
    var nextRTCPIndex: UInt32 = 1
}
