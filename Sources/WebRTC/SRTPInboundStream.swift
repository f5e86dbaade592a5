/// What the receiving side keeps per SSRC: the SRTP replay window (whose
/// highest index carries the rollover counter) and the SRTCP index window
/// (RFC 3711 sections 3.3.1, 3.3.2 and 3.4).
struct SRTPInboundStream {
    var rtp = SRTPReplayWindow()
    var rtcp = SRTPReplayWindow()
}
