/// What a room sent and received so far, per track (`Room.statistics()`).
public struct RoomStatistics: Sendable {
    public var localTracks: [LocalTrackStatistics]
    public var remoteTracks: [RemoteTrackStatistics]
    /// Round-trip time to the server on the media path, when measured.
    public var roundTripTimeMilliseconds: Double?
    /// Transport-cc feedback packets sent to the server on the subscriber
    /// connection (every 50 ms while media arrives): what the server's
    /// downlink estimate for this client is built on.
    public var transportFeedbackSent: Int

    public init(
        localTracks: [LocalTrackStatistics], remoteTracks: [RemoteTrackStatistics], roundTripTimeMilliseconds: Double? = nil,
        transportFeedbackSent: Int = 0
    ) {
        self.localTracks = localTracks
        self.remoteTracks = remoteTracks
        self.roundTripTimeMilliseconds = roundTripTimeMilliseconds
        self.transportFeedbackSent = transportFeedbackSent
    }

    public func remoteTrack(sid: String) -> RemoteTrackStatistics? {
        remoteTracks.first { $0.trackSid == sid }
    }

    public func localTrack(named name: String) -> LocalTrackStatistics? {
        localTracks.first { $0.name == name }
    }
}

public struct LocalTrackStatistics: Sendable {
    public var name: String
    public var kind: TrackKind
    public var trackSid: String?
    public var packetsSent: Int
    public var bytesSent: Int
    /// Video: frames encoded and sent, numbered 0..<framesSent in the
    /// pixels. Audio: 20 ms Opus frames sent.
    public var framesSent: Int
    public var retransmissionsSent: Int
    public var keyframeRequestsReceived: Int
}

public struct RemoteTrackStatistics: Sendable {
    public var trackSid: String
    public var participantSid: String
    public var kind: TrackKind
    public var packetsReceived: Int
    public var bytesReceived: Int
    /// From gaps in sequence numbers that were never filled.
    public var packetsLost: Int
    public var jitterMilliseconds: Double
    /// Video: complete VP8 frames assembled from packets.
    public var framesReceived: Int
    /// Frames decoded (0 when the room does not decode this kind).
    public var framesDecoded: Int
    /// Video: distinct frame numbers read back from decoded pixels.
    public var frameNumbersRead: Int
    public var firstFrameNumber: UInt32?
    public var lastFrameNumber: UInt32?
    /// Video: capture-to-decode latency of each frame read (ms, from the
    /// capture time drawn in the pixels; sender and receiver on one clock).
    public var latencyMilliseconds: [Double]
    /// Video: the size of the frames decoded last (the simulcast layer
    /// forwarded), nil before one is decoded.
    public var frameDimensions: VideoDimensions? { decodedSizeChanges.last?.dimensions }
    /// Video: every size the decoded frames took, first one included, so a
    /// track that switched layers twice has three.
    public var decodedSizeChanges: [DecodedSizeChange]
    /// Audio: the strongest frequency of the last second decoded (Hz).
    public var audioFrequency: Double?
    public var nacksSent: Int
    public var keyframeRequestsSent: Int
    /// Video: gaps between shown frames (decoded, or assembled when the
    /// room does not decode video) of at least max(3 x the mean gap, mean +
    /// 150 ms), WebRTC's `freezeCount`; and their total length.
    public var freezeCount: Int = 0
    public var totalFreezesDurationMilliseconds: Double = 0
    /// Video: the frame numbers read (`frameNumbersRead` of them), as
    /// ascending runs without gaps between them: which frames arrived, so a
    /// reader can count those sent before a given moment.
    public var frameNumberRanges: [ClosedRange<UInt32>] = []
}
