/// One participant's media counters at one instant, copied out of the SDK's
/// `RoomStatistics` so the report math needs no client, socket or clock.
public struct ParticipantSnapshot: Sendable, Equatable, Codable {
    public var identity: String
    public var roomName: String
    public var role: LoadPlan.Role
    public var decodesVideo: Bool
    public var sent: [SentTrack]
    public var received: [ReceivedTrack]
    /// `setContentPreferences` requests this subscriber sent, oldest first.
    public var renderRequests: [RenderRequest]
    /// `trackSwitchedOff` events this subscriber got so far.
    public var switchedOffEvents: Int
    /// With `--downlink-kbps`: its group's rate, kbit/s (0 = not shaped).
    public var downlinkKbps: Int?
    /// The node it is connected through (`NodeAddress`), nil if unknown.
    public var node: String?

    public init(
        identity: String, roomName: String, role: LoadPlan.Role, decodesVideo: Bool, sent: [SentTrack] = [],
        received: [ReceivedTrack] = [], renderRequests: [RenderRequest] = [], switchedOffEvents: Int = 0,
        downlinkKbps: Int? = nil, node: String? = nil
    ) {
        self.node = node
        self.switchedOffEvents = switchedOffEvents
        self.downlinkKbps = downlinkKbps
        self.identity = identity
        self.roomName = roomName
        self.role = role
        self.decodesVideo = decodesVideo
        self.sent = sent
        self.received = received
        self.renderRequests = renderRequests
    }

    /// A render size asked for one remote video track, and when: seconds
    /// on this participant's own clock (the same as `DecodedSize.seconds`).
    public struct RenderRequest: Sendable, Equatable, Codable {
        public var trackSid: String
        public var size: VideoResolution
        public var seconds: Double

        public init(trackSid: String, size: VideoResolution, seconds: Double) {
            self.trackSid = trackSid
            self.size = size
            self.seconds = seconds
        }
    }

    /// The decoded frames of a track took this size (the layer forwarded)
    /// from `seconds` on (this participant's clock).
    public struct DecodedSize: Sendable, Equatable, Codable {
        public var size: VideoResolution
        public var seconds: Double

        public init(size: VideoResolution, seconds: Double) {
            self.size = size
            self.seconds = seconds
        }
    }

    /// A track this participant publishes.
    public struct SentTrack: Sendable, Equatable, Codable {
        public var trackSid: String?
        public var name: String
        /// "audio" or "video".
        public var kind: String
        public var packetsSent: Int
        public var bytesSent: Int
        /// Video: frames sent, numbered 0..<framesSent in the pixels.
        public var framesSent: Int
        /// Packets resent on the server's NACKs.
        public var retransmissionsSent: Int
        /// PLIs and FIRs from the server.
        public var keyframeRequestsReceived: Int

        public init(
            trackSid: String?, name: String, kind: String, packetsSent: Int, bytesSent: Int, framesSent: Int,
            retransmissionsSent: Int = 0, keyframeRequestsReceived: Int = 0
        ) {
            self.trackSid = trackSid
            self.name = name
            self.kind = kind
            self.packetsSent = packetsSent
            self.bytesSent = bytesSent
            self.framesSent = framesSent
            self.retransmissionsSent = retransmissionsSent
            self.keyframeRequestsReceived = keyframeRequestsReceived
        }
    }

    /// A track this participant receives; counters are cumulative since it was subscribed.
    public struct ReceivedTrack: Sendable, Equatable, Codable {
        public var trackSid: String
        public var kind: String
        public var packetsReceived: Int
        public var bytesReceived: Int
        public var packetsLost: Int
        public var framesReceived: Int
        public var framesDecoded: Int
        /// Distinct frame numbers read back from decoded pixels.
        public var frameNumbersRead: Int
        public var firstFrameNumber: UInt32?
        public var lastFrameNumber: UInt32?
        /// The frame numbers read, as ascending runs (the SDK's
        /// `frameNumberRanges`): the report counts those its publisher had
        /// sent when it was read, so a frame still in flight is not lost.
        public var frameNumberRanges: [ClosedRange<UInt32>]
        /// Capture-to-decode latency of each decoded frame, oldest first.
        public var latencyMilliseconds: [Double]
        public var nacksSent: Int
        public var keyframeRequestsSent: Int
        /// Video: every size the decoded frames took, the first included.
        public var decodedSizes: [DecodedSize]
        /// Video: freezes so far (the SDK's `freezeCount`, WebRTC's definition).
        public var freezeCount: Int

        public init(
            trackSid: String, kind: String, packetsReceived: Int, bytesReceived: Int, packetsLost: Int,
            framesReceived: Int = 0, framesDecoded: Int = 0, frameNumbersRead: Int = 0,
            firstFrameNumber: UInt32? = nil, lastFrameNumber: UInt32? = nil, frameNumberRanges: [ClosedRange<UInt32>] = [],
            latencyMilliseconds: [Double] = [], nacksSent: Int = 0, keyframeRequestsSent: Int = 0,
            decodedSizes: [DecodedSize] = [], freezeCount: Int = 0
        ) {
            self.frameNumberRanges = frameNumberRanges
            self.freezeCount = freezeCount
            self.decodedSizes = decodedSizes
            self.trackSid = trackSid
            self.kind = kind
            self.packetsReceived = packetsReceived
            self.bytesReceived = bytesReceived
            self.packetsLost = packetsLost
            self.framesReceived = framesReceived
            self.framesDecoded = framesDecoded
            self.frameNumbersRead = frameNumbersRead
            self.firstFrameNumber = firstFrameNumber
            self.lastFrameNumber = lastFrameNumber
            self.latencyMilliseconds = latencyMilliseconds
            self.nacksSent = nacksSent
            self.keyframeRequestsSent = keyframeRequestsSent
        }
    }
}
