import Packets

/// One track as one subscriber receives it: the subscriber connection's
/// SSRC, payload type and header extension IDs, the munger that keeps its
/// numbering continuous, its RTX stream, its stats. The router decides
/// (`RTPMunger.translate`), the DownTrack writes (`write`).
public final class DownTrack {
    public let track: TrackID
    public let subscriber: TransportID
    public let kind: MediaKind
    public let ssrc: SSRC
    /// Repairs go here (RTX, RFC 4588) when the subscriber accepted RTX.
    public let rtxSSRC: SSRC?
    public let payloadType: UInt8
    public let rtxPayloadType: UInt8?
    /// This m-line's mid in the subscriber's SDP, for the mid extension.
    let mid: [UInt8]
    let extensionCopies: [HeaderExtensionCopy]
    public internal(set) var munger: RTPMunger
    public internal(set) var stats = DownTrackStats()
    /// Bytes and packets at the last report ticks, for `/Stats` bitrates.
    var rateMeter = RateMeter()
    var rtxSequence: UInt16
    /// When each recent sequence number was last resent (NACKs answered at
    /// most once per round trip).
    var resent = RetransmissionLog()
    /// SR counters (RFC 3550 6.4.1: payload octets).
    var packetCount: UInt32 = 0
    var octetCount: UInt32 = 0
    /// The middle 32 bits of our last SR's NTP time: RR's LSR echoes it.
    var lastSenderReportNTP: UInt32? { recentSenderReports.newest }
    /// Our last four SRs' NTP middles: an RR echoes an older one when the
    /// RTT is longer than the SR interval (1 s: four cover a 4 s RTT).
    var recentSenderReports = RecentSenderReports()
    /// The previous receiver report on this SSRC (extended highest sequence,
    /// cumulative lost) and the receiver's own cumulative loss then: the next
    /// report's deltas give the subscriber link's loss.
    var previousReport: (highest: UInt32, lost: Int32, upstreamLost: Int64)?
    unowned let receiver: Receiver
    /// Strong, so that reading it per copy is no runtime call (an unowned
    /// read is one). The session's `downTracks` holds this DownTrack back: a
    /// cycle the router breaks wherever it drops either (`removeDownTrack`,
    /// `removeSubscriber`, its `deinit`).
    let session: SubscriberSession
    /// Where the last packet written has its transport-wide number (the
    /// pacer writes it when the packet leaves); nil: it has none.
    var transportSequenceOffset: Int?
    /// The two-byte extension form is needed (an ID above 14, a mid longer
    /// than 16 bytes); otherwise the one-byte form (RFC 8285).
    let twoByteExtensions: Bool

    // Layers (PROTOCOL.md section 7).
    /// The spatial layer forwarded now: always 0 for a track of one layer;
    /// for a simulcast track nil until the first keyframe of the target.
    var currentLayer: Int?
    /// The spatial layer wanted; a switch waits for its keyframe.
    var targetLayer: Int
    /// Chooses `targetLayer` (simulcast tracks only).
    var selector: LayerSelector?
    var temporal = TemporalLayerFilter()
    /// Switched off by the subscriber (`switchOffTrack`).
    var switchedOffBySubscriber = false
    /// Switched off by the stream allocator (`networkCongestion`,
    /// `maxBandwidthReached`); nil while it forwards a layer.
    var switchedOffByAllocator: SwitchOffReason?
    /// The TID caps: the subscriber's own (`setTemporalLayerCap`) and the
    /// allocator's; the filter gets the lower.
    var subscriberTemporalCap = TemporalLayerFilter.all
    var allocatedTemporalCap = TemporalLayerFilter.all
    /// The spatial layers the allocator needs of the publisher for this
    /// DownTrack (bit i: layer i); nil while no allocation applies.
    var neededLayers: UInt64?
    /// The subscriber's own priority for the track; nil: the publisher's.
    var subscriberPriority: TrackPriority?

    /// The Receiver of the layer forwarded now (the one NACKs, SRs and RRs
    /// refer to), else of the target.
    var source: Receiver { receiver.layer(at: currentLayer ?? targetLayer) }

    /// Why nothing of the track goes to the subscriber, nil while it is on.
    /// Audio is never switched off.
    var switchOffReason: SwitchOffReason? {
        guard kind == .video else { return nil }
        if switchedOffBySubscriber { return .disabledBySubscriber }
        if !receiver.isForwarding { return .disabledByPublisher }
        return switchedOffByAllocator
    }

    /// Nothing of it goes out: switched off by the subscriber or by the
    /// allocator (the publisher's own switch-off stops the Receiver instead).
    var isHeld: Bool { switchedOffBySubscriber || switchedOffByAllocator != nil }

    init(
        track: TrackID, receiver: Receiver, session: SubscriberSession, ssrc: SSRC, rtxSSRC: SSRC?,
        payloadType: UInt8, rtxPayloadType: UInt8?, mid: String?, extensionCopies: [HeaderExtensionCopy],
        initialSequenceNumber: UInt16
    ) {
        self.track = track
        self.subscriber = session.transport
        self.kind = receiver.kind
        self.ssrc = ssrc
        self.rtxSSRC = rtxPayloadType == nil ? nil : rtxSSRC
        self.payloadType = payloadType
        self.rtxPayloadType = rtxSSRC == nil ? nil : rtxPayloadType
        self.mid = mid.map { Array($0.utf8) } ?? []
        self.extensionCopies = extensionCopies
        self.receiver = receiver
        self.session = session
        self.munger = RTPMunger(
            clockRate: receiver.clockRate, startsOnKeyframe: receiver.kind == .video,
            initialSequenceNumber: initialSequenceNumber)
        self.rtxSequence = initialSequenceNumber &+ 0x8000
        var ids: [UInt8] = extensionCopies.map(\.subscriberID)
        if let id = session.midExtensionID, !self.mid.isEmpty { ids.append(id) }
        if let id = session.transportCCExtensionID { ids.append(id) }
        self.twoByteExtensions = ids.contains { $0 > 14 } || self.mid.count > 16
        if receiver.isSimulcast {
            self.selector = LayerSelector(layerCount: receiver.layerCount)
            self.targetLayer = receiver.layerCount &- 1
        } else {
            self.currentLayer = 0
            self.targetLayer = 0
        }
    }

    /// The layer for `stats.layer`, from the current spatial and temporal layers.
    func forwardedLayer() -> ForwardedLayer? {
        guard let currentLayer, switchOffReason == nil else { return nil }
        let layer = receiver.layer(at: currentLayer)
        let cap = temporal.current
        return ForwardedLayer(
            rid: layer.rid, spatial: currentLayer, temporal: layer.highestTemporalLayer.map { Int(min($0, cap)) })
    }

    /// Writes the copy of `source` that `parameters` describe into `slot`:
    /// a fresh header (this subscriber's SSRC, PT, numbers, and only the
    /// extensions it negotiated), then the payload and padding. As an RTX
    /// packet (RFC 4588: RTX SSRC, PT and own sequence, then the original
    /// sequence number before the payload) when `asRTX`. Returns the
    /// packet's length, or nil when it does not fit the slot.
    func write(
        _ source: RTPPacketView, payloadOffset: Int, parameters: ForwardParameters, asRTX: Bool,
        transportSequence: UInt16, into slot: UnsafeMutableRawBufferPointer
    ) -> Int? {
        guard let head = writeHead(
            source, payloadOffset: payloadOffset, parameters: parameters, asRTX: asRTX,
            transportSequence: transportSequence, into: slot)
        else { return nil }
        UnsafeMutableRawBufferPointer(rebasing: slot[head.length..<(head.length &+ head.tail.count)])
            .copyMemory(from: head.tail)
        return head.length &+ head.tail.count
    }

    /// As `write`, without copying the payload: writes the header, and the
    /// payload's first bytes when they change (a VP8 descriptor with a
    /// rewritten picture ID or TL0PICIDX), into `slot`; returns their length
    /// and the rest of the packet, `tail`, still in `source`, which belongs
    /// right after them. `slot` has room for the tail (checked): the sink
    /// encrypts it straight across, the payload's only pass.
    func writeHead(
        _ source: RTPPacketView, payloadOffset: Int, parameters: ForwardParameters, asRTX: Bool,
        transportSequence: UInt16, into slot: UnsafeMutableRawBufferPointer
    ) -> (length: Int, tail: UnsafeRawBufferPointer)? {
        let body = UnsafeRawBufferPointer(rebasing: source.bytes[payloadOffset...])
        guard slot.count >= 16 &+ body.count else { return nil }
        let rtx = asRTX && rtxSSRC != nil
        slot[0] = 0x80 | (source.hasPadding ? 0x20 : 0)
        slot[1] = (source.marker ? 0x80 : 0) | (rtx ? rtxPayloadType! : payloadType)
        slot.sfuSetU16(rtx ? rtxSequence : parameters.sequenceNumber, at: 2)
        slot.sfuSetU32(parameters.timestamp, at: 4)
        slot.sfuSetU32((rtx ? rtxSSRC! : ssrc).rawValue, at: 8)

        var offset = writeExtensions(
            from: source, transportSequence: transportSequence, into: slot, limit: slot.count &- body.count &- 2)
        if rtx {
            slot.sfuSetU16(parameters.sequenceNumber, at: offset)
            offset &+= 2
        }
        guard offset &+ body.count <= slot.count else { return nil }
        var copied = 0
        if parameters.pictureID != nil || parameters.tl0PicIdx != nil,
            let descriptor = try? VP8PayloadDescriptor(
                validating: UnsafeRawBufferPointer(rebasing: body[..<(body.count &- source.paddingLength)]))
        {
            // Only the descriptor is copied, to be rewritten; it was
            // validated when the packet came in.
            copied = descriptor.length
            let head = UnsafeMutableRawBufferPointer(rebasing: slot[offset..<(offset &+ copied)])
            head.copyMemory(from: UnsafeRawBufferPointer(rebasing: body[..<copied]))
            try? descriptor.rewrite(in: head, pictureID: parameters.pictureID, tl0PicIdx: parameters.tl0PicIdx)
        }
        if rtx { rtxSequence &+= 1 }
        return (offset &+ copied, UnsafeRawBufferPointer(rebasing: body[copied...]))
    }

    /// Writes the header extensions after a 12-byte header already in
    /// `slot` (mid, transport-wide number, then the copies of `source`'s
    /// negotiated ones), ending before `limit`; sets the X bit when any was
    /// written. Returns where the payload starts.
    private func writeExtensions(
        from source: RTPPacketView?, transportSequence: UInt16, into slot: UnsafeMutableRawBufferPointer, limit: Int
    ) -> Int {
        // Header word at 12, elements from 16.
        var offset = 16
        var wroteAny = false
        func element(_ id: UInt8, _ count: Int) -> Int? {
            if twoByteExtensions {
                guard count <= 255, offset &+ 2 &+ count <= limit else { return nil }
                slot[offset] = id
                slot[offset &+ 1] = UInt8(truncatingIfNeeded: count)
                offset &+= 2
            } else {
                guard (1...16).contains(count), offset &+ 1 &+ count <= limit else { return nil }
                slot[offset] = id << 4 | UInt8(truncatingIfNeeded: count &- 1)
                offset &+= 1
            }
            let start = offset
            offset &+= count
            wroteAny = true
            return start
        }
        if let id = session.midExtensionID, !mid.isEmpty, let start = element(id, mid.count) {
            mid.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: slot[start..<(start &+ $0.count)]).copyMemory(from: $0)
            }
        }
        transportSequenceOffset = nil
        if let id = session.transportCCExtensionID, let start = element(id, 2) {
            slot.sfuSetU16(transportSequence, at: start)
            transportSequenceOffset = start
        }
        if let source {
            for copy in extensionCopies {
                guard let value = source.extensionValue(id: copy.publisherID),
                    let start = element(copy.subscriberID, value.count)
                else { continue }
                UnsafeMutableRawBufferPointer(rebasing: slot[start..<(start &+ value.count)]).copyMemory(from: value)
            }
        }
        guard wroteAny else { return 12 }
        while offset & 3 != 0 {
            slot[offset] = 0
            offset &+= 1
        }
        slot.sfuSetU16(
            twoByteExtensions ? RTPHeaderExtensionForm.twoByteProfile : RTPHeaderExtensionForm.oneByteProfile,
            at: 12)
        slot.sfuSetU16(UInt16(truncatingIfNeeded: (offset &- 16) / 4), at: 14)
        slot[0] |= 0x10
        return offset
    }

    /// Writes a padding-only packet (RFC 3550 5.1: no payload, `count`
    /// bytes of padding, 1-255) on the RTX stream into `slot`, for a
    /// bandwidth probe: libwebrtc sends its own padding the same way, and a
    /// receiver counts it for congestion control and discards it. Returns
    /// its length; nil without an RTX stream or room in the slot.
    func writePadding(_ count: Int, transportSequence: UInt16, into slot: UnsafeMutableRawBufferPointer) -> Int? {
        guard let rtxSSRC, let rtxPayloadType, (1...255).contains(count), slot.count >= 64 &+ count else { return nil }
        slot[0] = 0x80 | 0x20
        slot[1] = rtxPayloadType
        slot.sfuSetU16(rtxSequence, at: 2)
        slot.sfuSetU32(munger.lastTimestamp, at: 4)
        slot.sfuSetU32(rtxSSRC.rawValue, at: 8)
        var offset = writeExtensions(
            from: nil, transportSequence: transportSequence, into: slot, limit: slot.count &- count)
        guard offset &+ count <= slot.count else { return nil }
        for index in offset..<(offset &+ count &- 1) { slot[index] = 0 }
        offset &+= count
        slot[offset &- 1] = UInt8(truncatingIfNeeded: count)
        rtxSequence &+= 1
        return offset
    }
}
