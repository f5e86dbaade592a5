/// A snapshot of a `MediaEngine`'s counters.
struct MediaEngineStatistics: Sendable {
    struct LocalTrack: Hashable, Sendable {
        var name: String
        var kind: TrackKind
        var ssrc: UInt32
        var packetsSent: Int = 0
        var bytesSent: Int = 0
        var framesSent: Int = 0
        var nacksReceived: Int = 0
        var retransmissionsSent: Int = 0
        var keyframeRequestsReceived: Int = 0
    }

    struct RemoteTrack: Hashable, Sendable {
        var trackSid: String
        var kind: TrackKind
        var ssrc: UInt32
        /// Media packets, repairs that came on RTX included (RTX probes not).
        var packetsReceived: Int = 0
        var bytesReceived: Int = 0
        /// Repairs that came on the RTX stream (RFC 4588).
        var retransmissionsReceived: Int = 0
        /// Padding-only RTX packets: the server's bandwidth probes, counted
        /// by transport-cc and dropped.
        var paddingPacketsReceived: Int = 0
        /// RFC 3550 A.3: expected minus received, cumulative (repairs count as received).
        var packetsLost: Int = 0
        /// RFC 3550 A.8 interarrival jitter in milliseconds.
        var jitter: Double = 0
        var framesReceived: Int = 0
        var nacksSent: Int = 0
        var keyframeRequestsSent: Int = 0
    }

    var publisherState: MediaConnectionState
    var subscriberState: MediaConnectionState
    var localTracks: [LocalTrack]
    var remoteTracks: [RemoteTrack]
    /// From the server's receiver reports (LSR/DLSR) on the publisher connection.
    var roundTripTime: Duration?
    /// Datagrams dropped as malformed, unauthenticated, replayed or unknown.
    var droppedDatagrams: Int
    /// ICE-TCP frames not sent: the TCP connection had 128 KiB waiting.
    var droppedOutgoingFrames: Int = 0
    /// Transport-cc feedback packets sent on the subscriber connection.
    var transportFeedbackSent: Int = 0
}
