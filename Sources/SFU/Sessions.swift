import Packets

/// A publisher connection as the router knows it: its header extension
/// IDs, the tracks it publishes, and its transport-cc arrivals.
final class PublisherSession {
    let transport: TransportID
    let transportCCExtensionID: UInt8?
    let midExtensionID: UInt8?
    /// `ssrc-audio-level` (RFC 6464) on its audio, for dominant speaker.
    let audioLevelExtensionID: UInt8?
    /// `sdes:rtp-stream-id` and `sdes:repaired-rtp-stream-id` (RFC 8852):
    /// which simulcast layer a new SSRC carries.
    let ridExtensionID: UInt8?
    let repairedRIDExtensionID: UInt8?
    /// When RTP or RTCP last came from it (network quality's "no media").
    var lastHeard: MediaTime?
    /// The SSRC our RTCP to this connection (RR, PLI, feedback) is sent from.
    let rtcpSSRC: SSRC
    var receivers: [Receiver] = []
    let transportCC: TransportCCRecorder?
    /// Its packets come from the room's home worker, not from the network
    /// (`Router.addPublisher(relayed:)`): no feedback goes to it.
    let relayed: Bool

    init(
        transport: TransportID, transportCCExtensionID: UInt8?, midExtensionID: UInt8?, audioLevelExtensionID: UInt8?,
        ridExtensionID: UInt8? = nil, repairedRIDExtensionID: UInt8? = nil, rtcpSSRC: SSRC, relayed: Bool = false
    ) {
        self.relayed = relayed
        self.ridExtensionID = ridExtensionID
        self.repairedRIDExtensionID = repairedRIDExtensionID
        self.transport = transport
        self.transportCCExtensionID = transportCCExtensionID
        self.midExtensionID = midExtensionID
        self.audioLevelExtensionID = audioLevelExtensionID
        self.rtcpSSRC = rtcpSSRC
        self.transportCC = transportCCExtensionID == nil || relayed ? nil : TransportCCRecorder()
    }
}

/// A subscriber connection: its header extension IDs, its own transport-wide
/// sequence counter, whether its remote audio is paused, its DownTracks.
final class SubscriberSession {
    let transport: TransportID
    let midExtensionID: UInt8?
    let transportCCExtensionID: UInt8?
    /// What was sent with which transport-wide sequence number (from 1).
    var sendHistory = SendHistory()
    /// The newest transport-cc feedback mapped back to what was sent (a
    /// scratch buffer, reused: its capacity is one report's).
    var feedback: [PacketFeedback] = []
    /// The subscriber's newest REMB (bits per second), and when it came.
    var remb: (bitsPerSecond: UInt64, at: MediaTime)?
    /// The downlink estimate (issue 13), fed by every packet sent here and
    /// by the subscriber's transport-cc feedback or REMB; it reports
    /// nothing before the first of those.
    var estimator = BandwidthEstimator()
    var hasDownlinkFeedback = false
    /// When the first feedback (or REMB) came.
    var firstFeedback: MediaTime?
    /// Shares the estimate among the DownTracks (`Router+Allocation`).
    var allocator = StreamAllocator()
    /// Whether the allocator's last decisions are applied (feedback came,
    /// or the profile caps the bitrate).
    var isAllocating = false
    /// The estimator's `probeJumps` at the last allocation, and whether one
    /// came in the start ramp (`Router+Allocation`).
    var probeJumpsSeen: UInt64 = 0
    var rampConfirmed = false
    var nextAllocation: MediaTime?
    /// Spreads what is sent at 2.5 times the estimate, once the client
    /// gives feedback (`Router+Pacing`); nil: not paced.
    var pacer: Pacer?
    /// Slots of the room's held-packet pool its pacer holds now.
    var heldPackets = 0
    /// The probe cluster being sent, if any.
    var probe: ProbeBurst?
    var probePacketsSent: UInt64 = 0
    /// Feedback figures: packets reported received and lost, and reports
    /// about packets the history no longer (or never) held.
    var feedbackReceived: UInt64 = 0
    var feedbackLost: UInt64 = 0
    var feedbackUnknown: UInt64 = 0
    var audioPaused = false
    var downTracks: [DownTrack] = []
    /// When RTCP last came from it.
    var lastHeard: MediaTime?
    /// What its receiver reports said since the last `takeLinkSample`: the
    /// link's own loss per kind (the publisher's loss taken out), the largest
    /// link jitter per kind, and the newest RTT.
    var linkAudio = LinkSample.LossCount()
    var linkVideo = LinkSample.LossCount()
    var linkAudioJitter: Double?
    var linkVideoJitter: Double?
    var roundTripTime: (seconds: Double, at: MediaTime)?

    init(transport: TransportID, midExtensionID: UInt8?, transportCCExtensionID: UInt8?) {
        self.transport = transport
        self.midExtensionID = midExtensionID
        self.transportCCExtensionID = transportCCExtensionID
    }
}
