/// What the router measured of one participant's two directions over one
/// sampling interval (about a second): the input of `NetworkQualityMonitor`.
public struct LinkSample: Sendable, Equatable {
    /// Packets expected and lost in one direction for one kind of media.
    public struct LossCount: Sendable, Equatable {
        public var expected: Int64 = 0
        /// Signed: a late packet can make an interval's loss negative.
        public var lost: Int64 = 0
        /// Gaps (runs of lost packets) and the packets in them, upstream
        /// only, for the burst ratio; 0 where unknown.
        public var gaps: Int64 = 0
        public var gapPackets: Int64 = 0

        public init(expected: Int64 = 0, lost: Int64 = 0, gaps: Int64 = 0, gapPackets: Int64 = 0) {
            self.expected = expected
            self.lost = lost
            self.gaps = gaps
            self.gapPackets = gapPackets
        }

        /// The loss fraction (0...1), nil when nothing was expected.
        public var fraction: Double? {
            guard expected > 0 else { return nil }
            return min(1, max(0, Double(lost) / Double(expected)))
        }

        /// G.107's BurstR: the mean gap length over the mean a random loss of
        /// the same rate gives (1 / (1 - p)). 1 when unknown.
        public var burstRatio: Double {
            guard gaps > 0, let p = fraction, p < 1 else { return 1 }
            return max(1, Double(gapPackets) / Double(gaps) * (1 - p))
        }

        public static func += (lhs: inout LossCount, rhs: LossCount) {
            lhs.expected &+= rhs.expected
            lhs.lost &+= rhs.lost
            lhs.gaps &+= rhs.gaps
            lhs.gapPackets &+= rhs.gapPackets
        }
    }

    /// One direction: loss per kind, and the largest jitter per kind
    /// (seconds; nil when not measured).
    public struct Direction: Sendable, Equatable {
        public var audio = LossCount()
        public var video = LossCount()
        public var audioJitter: Double?
        public var videoJitter: Double?

        public init(audio: LossCount = LossCount(), video: LossCount = LossCount(), audioJitter: Double? = nil, videoJitter: Double? = nil) {
            self.audio = audio
            self.video = video
            self.audioJitter = audioJitter
            self.videoJitter = videoJitter
        }

        /// Audio's figures when audio flowed this way, else video's: the
        /// E-model rates speech, and Opus's 50 packets a second give a
        /// steadier loss than a video stream's bursts of frames.
        public var loss: LossCount? {
            if audio.expected > 0 { return audio }
            if video.expected > 0 { return video }
            return nil
        }

        public var jitter: Double? { audioJitter ?? videoJitter }

        public var carriedAudio: Bool { audio.expected > 0 }
    }

    /// Participant to server: its published tracks as the server receives them.
    public var upstream = Direction()
    /// Server to participant: from its receiver reports, less the loss the
    /// server's own copy already had (what its publisher's link lost).
    public var downstream = Direction()
    /// The newest RTT measured on its subscriber connection, seconds.
    public var roundTripTime: Double?
    /// Whether any RTP or RTCP arrived from the participant in the interval.
    public var heard = false

    public init(upstream: Direction = Direction(), downstream: Direction = Direction(), roundTripTime: Double? = nil, heard: Bool = false) {
        self.upstream = upstream
        self.downstream = downstream
        self.roundTripTime = roundTripTime
        self.heard = heard
    }
}
