import Packets

/// One published track as the router receives it: its SSRCs (declared, or
/// learned from the MID extension that Chrome sends only on about the first
/// 60 packets), its numbering, reception statistics for RTCP RR, the
/// history NACKs are answered from, and the DownTracks it fans out to.
///
/// The receiver numbers packets for its subscribers in one space (the
/// "compacted" sequence): the publisher's extended numbers minus the
/// padding-only probes dropped in order, continued with a jump of 1,024
/// when the publisher's SSRC changes (a restart), so a late packet of the
/// old source can never take a number of the new one.
///
/// A simulcast track (PROTOCOL.md section 7) has one Receiver per layer,
/// each with all of the above for its own SSRCs. The lowest layer's
/// Receiver stands for the track: it is the one `Router.receivers` holds,
/// it holds the DownTracks and the other layers (`higherLayers`), and its
/// figures are the track's `receiverStats`.
public final class Receiver {
    public let track: TrackID
    public let publisher: TransportID
    public let kind: MediaKind
    /// The m-line it arrives on; moves when a renegotiation carries the
    /// track on another one (`Router.updateReceiverMID`).
    public internal(set) var mid: String {
        didSet { midBytes = Array(mid.utf8) }
    }
    private(set) var midBytes: [UInt8]
    public let payloadType: UInt8
    public let rtxPayloadType: UInt8?
    public let clockRate: UInt32
    public internal(set) var primarySSRC: SSRC?
    public internal(set) var rtxSSRC: SSRC?
    /// Enabled by its publisher and not interrupted (PROTOCOL.md 3.3).
    public internal(set) var isForwarding = true
    public internal(set) var stats = ReceiverStats()
    /// The simulcast layer this Receiver takes (0 = lowest) and its RID;
    /// nil RID for a track published without simulcast.
    public let layer: Int
    public let rid: String?
    let ridBytes: [UInt8]
    /// The layers above this one, lowest first (on layer 0 of a simulcast
    /// track; empty otherwise).
    var higherLayers: [Receiver] = []
    /// On a higher layer: the track's lowest layer, which outlives it (it
    /// holds it, and the router drops both at once).
    unowned var lowestLayer: Receiver?
    /// The size the publish offer declared for this layer.
    let declaredSize: (width: Int, height: Int)?
    /// The size of this layer's newest keyframe (RFC 6386 9.1).
    var keyframeSize: (width: Int, height: Int)?
    /// When the last media packet of this layer arrived (liveness).
    var lastMediaArrival: MediaTime?
    /// The highest VP8 TID seen on this layer; nil: the stream has none.
    var highestTemporalLayer: UInt8?
    /// The publisher's priority for the track (on layer 0).
    var priority: TrackPriority = .standard
    /// The layers reported in the last `publisherLayers` event, one bit
    /// per layer (on layer 0 of a simulcast track).
    var reportedActiveLayers: UInt64 = 0

    var downTracks: [DownTrack] = []
    var window = SequenceWindow()
    var unwrapper = SequenceNumberUnwrapper()
    var reception: ReceptionStatistics
    /// Bumped on every source change; DownTracks resync when they see it.
    var epoch: UInt32 = 0
    /// Added to the compacted number: moves the numbering on at a source change.
    var sequenceBase: UInt64 = 0
    var awaitingFirstPacketOfEpoch = false
    var highestSequence: UInt64?
    let history: PacketHistory?
    /// A keyframe is wanted (subscriber joined, track enabled, a gap).
    var keyframeWanted = false
    var lastKeyframeRequest: MediaTime?
    /// The publisher's last SR on the primary SSRC: NTP and RTP time, and
    /// when it arrived (for RR's LSR/DLSR and for our SRs' RTP times).
    var lastSenderReport: (ntp: UInt64, rtp: UInt32, arrival: MediaTime)?
    /// Video packets the publisher's link lost, to NACK; `nackDue` when a
    /// new gap appeared (the router sends at once).
    var missing = MissingPackets()
    var nackDue = false
    /// Its publisher is relayed from another worker, whose router NACKs
    /// what the publisher's link lost: no gap bookkeeping here.
    var isRelayed = false
    /// Packets that arrived as repairs (on the RTX SSRC): not first
    /// transmissions, so network quality counts them lost.
    var repairs: UInt64 = 0
    /// Audio levels since the last `takeAudioActivity` (dominant speaker).
    var audioActivity = AudioActivity()
    /// Reception figures at the last `takeLinkSample`.
    var samplePrior = ReceptionSnapshot()
    /// Bytes and packets at the last report ticks, for `/Stats` bitrates.
    var rateMeter = RateMeter()
    /// The bitrate last measured while packets came (the stream allocator's
    /// figure for a layer that paused).
    var lastMeasuredBitrate: Int?

    init(
        track: TrackID, publisher: TransportID, kind: MediaKind, mid: String, payloadType: UInt8,
        rtxPayloadType: UInt8?, primarySSRC: SSRC?, rtxSSRC: SSRC?, clockRate: UInt32, layer: Int = 0,
        rid: String? = nil, declaredSize: (width: Int, height: Int)? = nil, buffers: PacketBufferPool
    ) {
        self.layer = layer
        self.rid = rid
        self.ridBytes = rid.map { Array($0.utf8) } ?? []
        self.declaredSize = declaredSize
        self.track = track
        self.publisher = publisher
        self.kind = kind
        self.mid = mid
        self.midBytes = Array(mid.utf8)
        self.payloadType = payloadType
        self.rtxPayloadType = rtxPayloadType
        self.primarySSRC = primarySSRC
        self.rtxSSRC = rtxSSRC
        self.clockRate = clockRate
        self.reception = ReceptionStatistics(clockRate: clockRate)
        self.history = kind == .video ? PacketHistory(pool: buffers) : nil
    }

    /// The publisher's stream restarted under a new SSRC: new numbering,
    /// new statistics, and subscribers resync at the next keyframe.
    func switchSource() {
        epoch &+= 1
        awaitingFirstPacketOfEpoch = true
        window.reset()
        unwrapper = SequenceNumberUnwrapper()
        reception = ReceptionStatistics(clockRate: clockRate)
        samplePrior = ReceptionSnapshot()
        repairs = 0
        lastSenderReport = nil
        missing.removeAll()
        stats.sourceChanges &+= 1
    }

    /// What the router does with one packet of this track.
    enum Outcome {
        case drop(DropReason)
        case forward(ForwardInput)
    }

    /// Places one packet (a media packet, or an RTX packet whose original
    /// sequence number is `sequenceNumber` and whose payload starts at
    /// `payloadOffset`), updates statistics and history, and says whether it
    /// goes on to the DownTracks. With `slot` (the pool buffer `packet` lies
    /// at the start of), the history keeps that buffer itself and puts
    /// another in `slot`; `packet` stays valid.
    func receive(
        _ packet: RTPPacketView, payloadOffset: Int, sequenceNumber: UInt16, retransmitted: Bool, now: MediaTime,
        slot: UnsafeMutablePointer<UnsafeMutableRawBufferPointer>? = nil
    ) -> Outcome {
        let extended = unwrapper.extended(sequenceNumber)
        let placement = window.place(extended)
        let compacted: UInt64
        switch placement {
        case .tooOld: return .drop(.tooOld)
        case .duplicate:
            if retransmitted {
                stats.rtxProbesDropped &+= 1
                return .drop(.rtxProbe)
            }
            stats.duplicates &+= 1
            return .drop(.duplicate)
        case .new(let value): compacted = value
        }
        if retransmitted { repairs &+= 1 }
        let payloadCount = packet.bytes.count &- payloadOffset &- packet.paddingLength
        let isNewest = window.highest.map { extended > $0 } ?? true
        if payloadCount <= 0 && isNewest {
            // A probe in order: drop it and close the numbering behind it. (A
            // late one fills a hole the subscribers already count, so it goes
            // on like media.)
            noteArrival(extended)
            _ = unwrapper.unwrap(sequenceNumber)
            window.record(extended, droppedPadding: true)
            reception.record(
                extendedSequence: extended, timestamp: packet.timestamp, arrival: now.nanoseconds, retransmitted: true)
            stats.paddingDropped &+= 1
            return .drop(retransmitted ? .rtxProbe : .padding)
        }
        var input = ForwardInput(sequence: 0, timestamp: packet.timestamp, epoch: epoch)
        if kind == .video && payloadCount > 0 {
            let payload = UnsafeRawBufferPointer(
                rebasing: packet.bytes[payloadOffset..<(payloadOffset &+ payloadCount)])
            guard let descriptor = try? VP8PayloadDescriptor(validating: payload) else { return .drop(.malformed) }
            input.isKeyframe = descriptor.isKeyframe
            input.pictureID = descriptor.pictureID
            input.tl0PicIdx = descriptor.tl0PicIdx
            if let tid = descriptor.temporalLayerIndex {
                input.temporalLayer = tid
                input.layerSync = descriptor.layerSync
                if highestTemporalLayer.map({ tid > $0 }) ?? true { highestTemporalLayer = tid }
            }
            if input.isKeyframe, let size = descriptor.keyframeSize, size.width > 0, size.height > 0 {
                keyframeSize = (Int(size.width), Int(size.height))
            }
        }
        lastMediaArrival = now
        noteArrival(extended)
        _ = unwrapper.unwrap(sequenceNumber)
        window.record(extended, droppedPadding: false)
        reception.record(
            extendedSequence: extended, timestamp: packet.timestamp, arrival: now.nanoseconds,
            retransmitted: retransmitted || payloadCount <= 0)
        if awaitingFirstPacketOfEpoch {
            // Continue 1,024 past the old source's newest number.
            sequenceBase = (highestSequence ?? 0) &+ UInt64(SequenceWindow.size) &+ 1 &- compacted
            awaitingFirstPacketOfEpoch = false
        }
        let sequence = compacted &+ sequenceBase
        if highestSequence == nil || sequence > highestSequence! { highestSequence = sequence }
        input.sequence = sequence
        if input.isKeyframe {
            stats.keyframes &+= 1
            keyframeWanted = false
        }
        stats.packets &+= 1
        stats.bytes &+= UInt64(packet.bytes.count)
        if let history {
            if let slot, let buffer = slot.pointee.baseAddress {
                let replacement = history.keep(
                    buffer, length: packet.bytes.count, payloadOffset: payloadOffset, sequence: sequence)
                slot.pointee = UnsafeMutableRawBufferPointer(start: replacement, count: slot.pointee.count)
            } else {
                history.store(packet.bytes, payloadOffset: payloadOffset, sequence: sequence)
            }
        }
        return .forward(input)
    }

    /// Gap bookkeeping for NACKs to the publisher (video only: Opus has
    /// no NACK in Vroom's SDP). A gap longer than `MissingPackets.capacity`
    /// asks for a keyframe instead.
    private func noteArrival(_ extended: UInt64) {
        guard kind == .video, !isRelayed, let highest = window.highest else { return }
        if extended > highest &+ 1 {
            if missing.add(from: highest &+ 1, to: extended) {
                nackDue = true
            } else {
                missing.removeAll()
                keyframeWanted = true
            }
        } else if extended < highest {
            missing.remove(extended)
        }
    }

    /// The munger input for a packet out of the history (retransmission).
    func historyInput(_ packet: RTPPacketView, payloadOffset: Int, sequence: UInt64) -> ForwardInput {
        var input = ForwardInput(sequence: sequence, timestamp: packet.timestamp, epoch: epoch)
        let end = packet.bytes.count &- packet.paddingLength
        if kind == .video, end > payloadOffset,
            let descriptor = try? VP8PayloadDescriptor(
                validating: UnsafeRawBufferPointer(rebasing: packet.bytes[payloadOffset..<end]))
        {
            input.pictureID = descriptor.pictureID
            input.tl0PicIdx = descriptor.tl0PicIdx
            input.temporalLayer = descriptor.temporalLayerIndex
        }
        return input
    }

    /// The RR block on the primary SSRC, moving the fraction-lost interval
    /// on; nil before any packet.
    func takeReceptionReport(now: MediaTime) -> ReceptionReport? {
        guard let ssrc = primarySSRC, let report = reception.takeReport(ssrc: ssrc, now: now.nanoseconds) else {
            return nil
        }
        stats.lost = report.cumulativeLost
        stats.fractionLost = report.fractionLost
        stats.jitter = report.jitter
        stats.jitterSeconds = reception.jitterSeconds
        return report
    }
}

extension Receiver {
    /// Whether this Receiver stands for a simulcast track (declared with layers).
    var isSimulcast: Bool { rid != nil }

    /// The track's number of layers (on layer 0).
    var layerCount: Int { higherLayers.count &+ 1 }

    /// The track's layer `index` (on layer 0).
    @inline(__always)
    func layer(at index: Int) -> Receiver {
        index == 0 ? self : higherLayers[index &- 1]
    }

    /// Live: a media packet within `LayerSelector.liveThreshold`.
    func isLive(now: MediaTime) -> Bool {
        guard let last = lastMediaArrival else { return false }
        return now.nanoseconds(since: last) < LayerSelector.liveThreshold
    }

    /// Layer `index`'s size (on layer 0): learned from its keyframes, else
    /// declared, else derived from the nearest layer whose size is known
    /// (each layer twice the one below, libwebrtc's default scaling), else
    /// from an assumed 1280x720 top layer.
    func layerSize(_ index: Int) -> (width: Int, height: Int) {
        func known(_ i: Int) -> (width: Int, height: Int)? {
            let receiver = layer(at: i)
            return receiver.keyframeSize ?? receiver.declaredSize
        }
        if let size = known(index) { return size }
        for distance in 1..<max(2, layerCount) {
            if index &+ distance < layerCount, let size = known(index &+ distance) {
                return (size.width >> distance, size.height >> distance)
            }
            if index &- distance >= 0, let size = known(index &- distance) {
                return (size.width << distance, size.height << distance)
            }
        }
        let shift = layerCount &- 1 &- index
        return (1280 >> shift, 720 >> shift)
    }

    /// Layer `index` as a `LayerSelector` sees it at `now` (on layer 0).
    func selectorLayer(_ index: Int, now: MediaTime) -> LayerSelector.Layer {
        let size = layerSize(index)
        return LayerSelector.Layer(width: size.width, height: size.height, isLive: layer(at: index).isLive(now: now))
    }
}

/// A receiver's cumulative reception figures at one moment.
struct ReceptionSnapshot {
    var expected: UInt64 = 0
    var received: UInt64 = 0
    var repairs: UInt64 = 0
    var gaps: UInt64 = 0
    var gapPackets: UInt64 = 0
}

extension Receiver {
    /// The link figures since the last call: expected packets, those that
    /// did not arrive on their first transmission, and the gaps.
    func takeLinkLoss() -> LinkSample.LossCount {
        let now = ReceptionSnapshot(
            expected: reception.expected, received: reception.received, repairs: repairs, gaps: reception.gaps,
            gapPackets: reception.gapPackets)
        let prior = samplePrior
        samplePrior = now
        let expected = Int64(bitPattern: now.expected &- prior.expected)
        let firstTime = Int64(bitPattern: (now.received &- now.repairs) &- (prior.received &- prior.repairs))
        return LinkSample.LossCount(
            expected: expected, lost: expected &- firstTime, gaps: Int64(bitPattern: now.gaps &- prior.gaps),
            gapPackets: Int64(bitPattern: now.gapPackets &- prior.gapPackets))
    }

    /// The publisher's cumulative loss of this track as forwarded (repairs
    /// count as received): what every subscriber's report includes too.
    var forwardedLoss: Int64 {
        Int64(bitPattern: reception.expected) &- Int64(bitPattern: reception.received)
    }
}

/// A DownTrack's last four SRs (NTP middle 32 bits), without an array.
struct RecentSenderReports {
    private var values: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
    private var count = 0

    mutating func append(_ value: UInt32) {
        values = (value, values.0, values.1, values.2)
        count = min(count &+ 1, 4)
    }

    var newest: UInt32? { count > 0 ? values.0 : nil }

    func contains(_ value: UInt32) -> Bool {
        guard value != 0 else { return false }
        return (count > 0 && values.0 == value) || (count > 1 && values.1 == value)
            || (count > 2 && values.2 == value) || (count > 3 && values.3 == value)
    }
}
