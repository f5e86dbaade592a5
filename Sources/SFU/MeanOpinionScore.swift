/// A simplified ITU-T G.107 E-model: the transmission rating R from delay,
/// codec and packet loss, mapped to a mean opinion score (MOS, 1-4.5).
///
///     R   = R0 - Id - Ie,eff                       (G.107 7.1, Is = 0, A = 0)
///     R0  = 93.2                                   (G.107 default parameters)
///     Id  = 0.024 d + 0.11 (d - 177.3) H(d - 177.3) (Cole and Rosenbluth's fit of G.107's Idd)
///     Ie,eff = Ie + (95 - Ie) Ppl / (Ppl / BurstR + Bpl)   (G.107 7.4)
///     MOS = 1 + 0.035 R + 7e-6 R (R - 60) (100 - R)        (G.107 annex B), 1 below R 0, 4.5 above R 100
///
/// `d` is the one-way mouth-to-ear delay in ms: half the RTT plus the
/// receiver's jitter buffer (`jitterBuffer(for:)`), `Ppl` the loss in
/// percent, `BurstR` the burst ratio (1 for random loss).
public enum MeanOpinionScore {
    /// G.107's default basic signal-to-noise rating, with Is = 0 and A = 0.
    public static let basicRating = 93.2

    /// The equipment impairment of a codec (G.113 appendix I style):
    /// `ie` without loss and `bpl`, its robustness against loss.
    public struct CodecImpairment: Sendable, Hashable {
        public var ie: Double
        public var bpl: Double

        public init(ie: Double, bpl: Double) {
            self.ie = ie
            self.bpl = bpl
        }

        /// Opus at Vroom's settings (wideband or better, 20 ms frames, in-band
        /// FEC, good concealment): G.113 has no Opus row, so we take Ie = 0
        /// (it beats G.711's narrowband at any bitrate WebRTC uses) and
        /// Bpl = 20, between G.711 with concealment (25.1) and G.729A (19):
        /// 1% loss costs R 4.5, 10% costs R 32.
        public static let opus = CodecImpairment(ie: 0, bpl: 20)
        /// VP8 (no E-model row exists for video): Ie = 0 and a lower
        /// Bpl = 10, because one lost packet spoils a frame and those after it
        /// until a repair or keyframe, where Opus conceals 20 ms.
        public static let vp8 = CodecImpairment(ie: 0, bpl: 10)
    }

    /// The playout (jitter) buffer a WebRTC receiver keeps for a given
    /// interarrival jitter, in seconds: two jitters plus one 20 ms packet
    /// (libwebrtc's NetEq targets about this), so 0 jitter still costs 20 ms.
    public static func jitterBuffer(for jitter: Double) -> Double {
        0.020 + 2 * max(0, jitter)
    }

    /// The rating R for a one-way delay in seconds, a loss fraction (0...1)
    /// and a burst ratio (>= 1; 1 for random loss).
    public static func rating(
        oneWayDelay: Double, lossFraction: Double, burstRatio: Double = 1, codec: CodecImpairment = .opus
    ) -> Double {
        let d = max(0, oneWayDelay) * 1000
        let delayImpairment = 0.024 * d + (d > 177.3 ? 0.11 * (d - 177.3) : 0)
        let ppl = min(max(lossFraction, 0), 1) * 100
        let burst = max(1, burstRatio)
        let equipment = codec.ie + (95 - codec.ie) * ppl / (ppl / burst + codec.bpl)
        return basicRating - delayImpairment - equipment
    }

    /// G.107 annex B: MOS from R.
    public static func score(rating r: Double) -> Double {
        if r <= 0 { return 1 }
        if r >= 100 { return 4.5 }
        return 1 + 0.035 * r + 7e-6 * r * (r - 60) * (100 - r)
    }

    /// The MOS for a round-trip time and jitter in seconds, a loss fraction
    /// (0...1) and burst ratio, with `codec`.
    public static func score(
        roundTripTime: Double, jitter: Double, lossFraction: Double, burstRatio: Double = 1,
        codec: CodecImpairment = .opus
    ) -> Double {
        let delay = max(0, roundTripTime) / 2 + jitterBuffer(for: jitter)
        return score(rating: rating(oneWayDelay: delay, lossFraction: lossFraction, burstRatio: burstRatio, codec: codec))
    }
}
