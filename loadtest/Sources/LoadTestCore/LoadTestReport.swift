/// The result of a run: what `--json` prints and the table renders.
/// Rates are bits or packets per second; times are milliseconds; loss is a
/// fraction (0.01 = 1%).
public struct LoadTestReport: Sendable, Equatable, Codable {
    public var configuration: LoadTestConfiguration
    /// ISO 8601, UTC.
    public var startedAt: String
    /// Length of the measurement window (all joined + settle .. end), s.
    public var windowSeconds: Double
    public var rooms: Rooms
    public var participants: Participants
    /// Connect call to the `connected` event, over every joined participant.
    public var joinTimeMilliseconds: Distribution
    public var tracks: [Track]
    /// Received packets lost over the window, all tracks and receivers.
    public var lossFraction: Double?
    /// Capture-to-decode latency over the window, every decoding receiver
    /// of every video track.
    public var latencyMilliseconds: Distribution
    /// The lowest frames read back / frames sent of any sampled receiver.
    public var worstFrameRatio: Double?
    public var clients: Clients
    public var server: Server
    public var verdict: Verdict
    /// With `--render`: per subscriber and remote video track, the layer it
    /// received; nil without `--render`.
    public var renders: [RenderReceiver]?
    /// With `--render`: the same per render size asked first.
    public var renderSummary: [RenderSummary]?
    /// With `--downlink-kbps`: per subscriber, its downlink and what it got.
    public var downlink: [DownlinkReceiver]?
    /// With `--downlink-kbps`: the same per group.
    public var downlinkGroups: [DownlinkGroup]?
    /// The load tester's own health: when it was saturated, its failures
    /// are its own starvation's as much as the server's (`verdict.inconclusive`).
    public var loadTester: LoadTesterHealth?

    /// One subscriber under `--downlink-kbps`.
    public struct DownlinkReceiver: Sendable, Equatable, Codable {
        public var subscriber: String
        public var room: String
        /// Its group's rate, kbit/s; 0 = not shaped.
        public var downlinkKbps: Int
        /// The server's estimate (`available_outgoing_bitrate`), bit/s:
        /// the last sample, and min and median over the window's samples.
        public var estimateLast: Double?
        public var estimateMin: Double?
        public var estimateMedian: Double?
        public var estimateSamples: Int
        /// Video received in the window (all its video tracks), bit/s.
        public var videoBitrate: Double
        /// The layer forwarded at the last sample ("h/T2", "off"), and
        /// every distinct one seen in order.
        public var layerLast: String?
        public var layersSeen: [String]
        /// `trackSwitchedOff` events over the run.
        public var switchedOffEvents: Int
        /// Freezes of its video in the window.
        public var freezes: Int
        /// Datagrams its relay dropped at the bottleneck (nil: not shaped).
        public var relayQueueDrops: Int?
    }

    /// The subscribers of one downlink group.
    public struct DownlinkGroup: Sendable, Equatable, Codable {
        public var downlinkKbps: Int
        public var subscribers: Int
        /// Median of the subscribers' median estimates, bit/s.
        public var estimateMedian: Double?
        public var videoBitrateMean: Double
        public var switchedOffEvents: Int
        public var freezes: Int
        /// Last layer -> subscribers.
        public var layersLast: [String: Int]
    }

    /// One subscriber's view of one video track under `--render`.
    public struct RenderReceiver: Sendable, Equatable, Codable {
        public var subscriber: String
        public var room: String
        public var publisher: String
        public var trackSid: String
        /// The size asked first, and the one it changed to (`--render-change-after`).
        public var renderSize: VideoResolution
        public var changedRenderSize: VideoResolution?
        /// The size of the frames decoded last: the layer received.
        public var decodedSize: VideoResolution?
        /// The layer received while rendering `renderSize`: the decoded size
        /// when the change was asked, or the last one without a change.
        public var firstLayer: VideoResolution?
        /// Changes of the decoded size after the first frame (layer switches seen).
        public var layerSwitches: Int
        /// From the request of the changed size to the first decoded frame
        /// of another size than before it, ms; nil without a change or when
        /// no such frame came.
        public var switchMilliseconds: Double?
    }

    /// The receivers that asked one render size first.
    public struct RenderSummary: Sendable, Equatable, Codable {
        public var renderSize: VideoResolution
        public var receivers: Int
        /// Decoded size ("WxH", "none") -> receivers that got it while
        /// rendering `renderSize` (before any change).
        public var decodedSizes: [String: Int]
        public var layerSwitchesMean: Double?
        public var switchMilliseconds: Distribution
    }

    public struct Rooms: Sendable, Equatable, Codable {
        public var planned: Int
        public var created: Int
        /// Room name -> why REST refused it.
        public var failures: [String: String]
    }

    public struct Participants: Sendable, Equatable, Codable {
        public var planned: Int
        public var joined: Int
        public var failed: Int
        /// Failed joins by code ("53105", "timeout", "room").
        public var failuresByCode: [String: Int]
        /// Joined, then disconnected before the run ended.
        public var disconnected: Int
        public var disconnectsByCode: [String: Int]
        /// Where each participant connected at the window's end was
        /// connected through (identity -> `host:port` of its signaling
        /// URL, PROTOCOL.md 8), and how many that makes per node. nil in
        /// reports of versions that did not record it.
        public var nodes: [String: String]?
        public var perNode: [String: Int]?
        /// Per node: the cores its process used on average over the window
        /// (CPU seconds / window seconds), read from its `/metrics`.
        public var cpuCoresPerNode: [String: Double]?
    }

    /// One published track, as its receivers saw it.
    public struct Track: Sendable, Equatable, Codable {
        public var trackSid: String
        public var room: String
        public var publisher: String
        public var kind: String
        /// Receivers at the end of the window.
        public var subscribers: Int
        /// Mean over its receivers of bytes received in the window * 8 / window.
        public var receivedBitrateMean: Double
        /// Sums over its receivers, in the window.
        public var packetsReceived: Int
        public var packetsLost: Int
        public var lossFraction: Double?
        /// Publisher's count at the end (whole run).
        public var packetsSent: Int
        public var framesSent: Int?
        /// Decoding receivers (video only).
        public var sampled: [SampledReceiver]
        public var latencyMilliseconds: Distribution
    }

    /// A decoding receiver of a video track: frames it read back against
    /// the frames its publisher sent from the first frame it could show.
    public struct SampledReceiver: Sendable, Equatable, Codable {
        public var subscriber: String
        public var framesDecoded: Int
        public var frameNumbersRead: Int
        public var firstFrameNumber: UInt32?
        /// Publisher's frames sent minus the receiver's first frame number.
        public var framesExpected: Int
        /// frameNumbersRead / framesExpected (nil when nothing was expected).
        public var frameRatio: Double?
    }

    /// The clients' own totals over the whole run, to set beside the server's.
    public struct Clients: Sendable, Equatable, Codable {
        public var packetsSent: Int
        public var bytesSent: Int
        public var packetsReceived: Int
        public var bytesReceived: Int
        public var packetsLost: Int
        public var framesSent: Int
        public var framesDecoded: Int
        /// Receivers' NACKs and keyframe requests (PLI/FIR) to the server.
        public var nacksSent: Int
        public var keyframeRequestsSent: Int
        /// Publishers' packets resent on the server's NACKs, and the
        /// server's keyframe requests they got.
        public var retransmissionsSent: Int
        public var keyframeRequestsReceived: Int
    }

    public struct Server: Sendable, Equatable, Codable {
        /// The server's own counters over the run (nil: /metrics unreadable).
        public var counts: ServerCounts?
        public var metricsError: String?
        /// Seconds between the two scrapes.
        public var scrapeSeconds: Double
        public var forwardedPacketsPerSecond: Double?
        /// utime + stime of `--server-pid` over the same interval.
        public var cpuSeconds: Double?
        public var cpuSecondsPerForwardedPacket: Double?
    }

    public struct Verdict: Sendable, Equatable, Codable {
        public var passed: Bool
        /// Why it did not pass, one line each.
        public var reasons: [String]
        /// It did not pass, and the load tester was saturated: the failures
        /// say nothing sure about the server (exit status 3, not 1).
        public var inconclusive = false
    }
}
