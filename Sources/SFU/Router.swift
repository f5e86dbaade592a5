import Packets

/// The forwarding core of one room (DESIGN.md, "The packet path"): per
/// published track a `Receiver`, per subscriber and track a `DownTrack`.
/// Sans-I/O: plaintext RTP/RTCP and `now` in, packets into the caller's
/// `PacketSink`, the next deadline out of `tick`.
///
/// Owned by one media-worker thread, so not `Sendable`, and nothing in it
/// locks. Control commands (add/remove, enable, pause) may allocate; the
/// per-packet path (`receiveRTP`) does not. Commands never write packets:
/// call `tick` after a batch of them (a PLI a command asks for goes out
/// there, at once).
public final class Router {
    /// At most one keyframe request per track per 500 ms: a keyframe is
    /// 10-30 packets, and asking again before the last one could arrive only
    /// makes the encoder spend more bits.
    public var keyframeRequestInterval: UInt64 = 500_000_000
    /// SR per DownTrack and RR per publisher, every second (RFC 3550 allows
    /// less; browsers send theirs about once a second).
    public var reportInterval: UInt64 = 1_000_000_000
    /// Transport-cc feedback every 50 ms: 20 a second; Chrome ramps up with
    /// about 15 (INTEROP.md).
    public var transportCCFeedbackInterval: UInt64 = 50_000_000
    /// The NTP time (RFC 3550 section 4, seconds since 1900 in the high 32
    /// bits) at `MediaTime` zero; SRs carry `ntpAtZero + now`.
    public let ntpAtZero: UInt64

    public internal(set) var counters = RouterCounters()

    var publishers: [TransportID: PublisherSession] = [:]
    /// Drop a session only through `removeSubscriber` (or with the router):
    /// its DownTracks hold it strongly (`DownTrack.session`), a cycle those
    /// two break.
    var subscribers: [TransportID: SubscriberSession] = [:]
    var receivers: [TrackID: Receiver] = [:]
    /// (publisher, SSRC) -> receiver.
    var routes: [UInt64: Route] = [:]
    /// (subscriber, DownTrack SSRC or its RTX SSRC) -> DownTrack.
    var downTrackRoutes: [UInt64: DownTrack] = [:]
    var nextReport: MediaTime?
    var nextFeedback: MediaTime?
    /// Layer events not yet taken (`takeEvents`).
    var events: [RouterEvent] = []
    /// Keyframes wanted of relayed publishers, for the home worker
    /// (`takeRelayedKeyframeRequests`).
    public internal(set) var relayedKeyframeRequests: [RelayedKeyframeRequest] = []
    /// The newest `now` the router was given (packets, ticks, commands):
    /// the time for commands that take none (`addDownTrack`); nil before
    /// any (then the first tick decides).
    var lastNow: MediaTime?
    /// The publisher connection of the room's dominant speaker: its video
    /// gets the bandwidth profile's `dominantSpeakerPriority`.
    public internal(set) var dominantSpeaker: TransportID?
    /// When `tick` must run to send what a pacer held back since the last
    /// tick; nil: nothing new (the last deadline stands).
    public internal(set) var tickWanted: MediaTime?
    /// Copies the subscribers' pacers hold back (`Router+Pacing`).
    let heldPackets = HeldPacketPool()
    /// Packets each video track keeps to answer NACKs (`PacketHistory`):
    /// as many `buffers` as a track takes once it has sent that many.
    public static let historyCapacity = 512
    /// Where the video tracks' NACK histories take their buffers: the
    /// worker's pool, shared with its ingress ring (`receiveRTP(slot:...)`).
    public let buffers: PacketBufferPool

    struct Route {
        let receiver: Receiver
        let isRTX: Bool
    }

    /// - Parameter buffers: the worker's pool, shared by its routers and its
    ///   ingress ring; by default the router's own.
    public init(ntpAtZero: UInt64 = 0, buffers: PacketBufferPool = PacketBufferPool()) {
        self.ntpAtZero = ntpAtZero
        self.buffers = buffers
    }

    deinit {
        // Each DownTrack holds its session, which holds it (`DownTrack.session`).
        for session in subscribers.values { session.downTracks.removeAll() }
    }

    @inline(__always)
    static func key(_ transport: TransportID, _ ssrc: SSRC) -> UInt64 {
        UInt64(transport.rawValue) << 32 | UInt64(ssrc.rawValue)
    }

    // MARK: Publishers and their tracks

    /// A publisher connection: its negotiated header extension IDs (nil when
    /// not negotiated). With transport-cc, `tick` sends it feedback; with
    /// audio level, its audio feeds `takeAudioActivity`.
    ///
    /// `relayed`: the connection lives on another worker (the room's home),
    /// which hands this router a copy of each packet it receives from it, to
    /// forward to subscribers here. The home router answers the publisher
    /// (NACKs, receiver reports, transport-cc); this one sends it nothing,
    /// and its keyframe requests go to `takeRelayedKeyframeRequests`.
    public func addPublisher(
        transport: TransportID, transportCCExtensionID: UInt8?, midExtensionID: UInt8?,
        audioLevelExtensionID: UInt8? = nil, ridExtensionID: UInt8? = nil, repairedRIDExtensionID: UInt8? = nil,
        rtcpSSRC: SSRC = SSRC(1), relayed: Bool = false
    ) throws(RouterError) {
        guard publishers[transport] == nil, subscribers[transport] == nil else {
            throw .duplicateTransport(transport)
        }
        publishers[transport] = PublisherSession(
            transport: transport, transportCCExtensionID: transportCCExtensionID,
            midExtensionID: midExtensionID, audioLevelExtensionID: audioLevelExtensionID,
            ridExtensionID: ridExtensionID, repairedRIDExtensionID: repairedRIDExtensionID, rtcpSSRC: rtcpSSRC,
            relayed: relayed)
    }

    /// Removes a publisher connection and every track it published (with
    /// their DownTracks).
    public func removePublisher(transport: TransportID) {
        guard let session = publishers[transport] else { return }
        for receiver in session.receivers { removeReceiver(track: receiver.track) }
        publishers[transport] = nil
    }

    /// A published track. SSRCs may be declared (`a=ssrc`) or left nil: then
    /// the receiver learns them from the MID extension, or from a payload
    /// type no other track of the publisher uses.
    ///
    /// `layers` (video only; ignored for audio) makes it a simulcast track:
    /// one Receiver per layer, lowest first, each bound to its declared
    /// SSRCs, else to the first SSRC whose MID names the track and whose RID
    /// (repaired RID for RTX) names the layer. `ssrc`/`rtxSSRC` then stand
    /// for the lowest layer when it declares none. A `publisherLayers` event
    /// with the lowest layer follows at once.
    public func addReceiver(
        track: TrackID, publisher: TransportID, kind: MediaKind, mid: String, payloadType: UInt8,
        rtxPayloadType: UInt8? = nil, ssrc: SSRC? = nil, rtxSSRC: SSRC? = nil, clockRate: UInt32,
        enabled: Bool = true, layers: [SimulcastLayer] = [], priority: TrackPriority = .standard
    ) throws(RouterError) {
        guard let session = publishers[publisher] else { throw .unknownTransport(publisher) }
        guard receivers[track] == nil else { throw .duplicateTrack(track) }
        let layers = kind == .video ? layers : []
        var declared: [SSRC] = []
        if layers.isEmpty {
            declared = [ssrc, rtxSSRC].compactMap { $0 }
        } else {
            for (index, layer) in layers.enumerated() {
                if let primary = layer.ssrc ?? (index == 0 ? ssrc : nil) { declared.append(primary) }
                if let rtx = layer.rtxSSRC ?? (index == 0 ? rtxSSRC : nil) { declared.append(rtx) }
            }
        }
        for (index, value) in declared.enumerated() {
            if routes[Self.key(publisher, value)] != nil || declared[..<index].contains(value) {
                throw .ssrcInUse(value)
            }
        }
        func makeReceiver(_ index: Int, _ layer: SimulcastLayer?) -> Receiver {
            let primary = layer.map { $0.ssrc ?? (index == 0 ? ssrc : nil) } ?? ssrc
            let rtx = layer.map { $0.rtxSSRC ?? (index == 0 ? rtxSSRC : nil) } ?? rtxSSRC
            let size: (width: Int, height: Int)? =
                if let width = layer?.width, let height = layer?.height, width > 0, height > 0 {
                    (width, height)
                } else { nil }
            let receiver = Receiver(
                track: track, publisher: publisher, kind: kind, mid: mid, payloadType: payloadType,
                rtxPayloadType: rtxPayloadType, primarySSRC: primary, rtxSSRC: rtx, clockRate: clockRate,
                layer: index, rid: layer?.rid, declaredSize: size, buffers: buffers)
            receiver.isForwarding = enabled
            receiver.isRelayed = session.relayed
            session.receivers.append(receiver)
            if let primary { routes[Self.key(publisher, primary)] = Route(receiver: receiver, isRTX: false) }
            if let rtx { routes[Self.key(publisher, rtx)] = Route(receiver: receiver, isRTX: true) }
            return receiver
        }
        let receiver = makeReceiver(0, layers.first)
        receiver.priority = priority
        for index in layers.indices.dropFirst() {
            let layer = makeReceiver(index, layers[index])
            layer.lowestLayer = receiver
            receiver.higherLayers.append(layer)
        }
        receivers[track] = receiver
        if let lowest = layers.first {
            receiver.reportedActiveLayers = 1
            events.append(.publisherLayers(track: track, active: [lowest.rid]))
        }
    }

    /// New SSRCs for a track after a renegotiation (a publisher restart
    /// announced in SDP). A new primary SSRC starts a new source: subscribers
    /// keep their numbering and resync at the next keyframe.
    public func updateReceiverSSRCs(track: TrackID, ssrc: SSRC?, rtxSSRC: SSRC?) throws(RouterError) {
        guard let receiver = receivers[track] else { throw .unknownTrack(track) }
        if let ssrc, ssrc != receiver.primarySSRC { bindPrimary(receiver, ssrc) }
        if let rtxSSRC, rtxSSRC != receiver.rtxSSRC { bindRTX(receiver, rtxSSRC) }
    }

    /// The track moved to another m-line in a renegotiation: a new
    /// transceiver under the track's name (a client that unpublished it and
    /// published it again in one offer). Its packets are recognised by the
    /// new mid from now on; the old transceiver's SSRCs name nothing (the
    /// freed m-line may carry another track); the new SSRCs bind as a new
    /// source, so every DownTrack keeps its numbering and resyncs at the
    /// keyframe asked then. A new sender sends every simulcast layer: the
    /// layers in use are said again (`publisherLayers`).
    public func updateReceiverMID(track: TrackID, mid: String) throws(RouterError) {
        guard let receiver = receivers[track] else { throw .unknownTrack(track) }
        guard receiver.mid != mid else { return }
        for layer in [receiver] + receiver.higherLayers {
            layer.mid = mid
            // The SSRCs stay on the layer (a rebind is a source switch) but route nothing.
            if let ssrc = layer.primarySSRC { routes[Self.key(receiver.publisher, ssrc)] = nil }
            if let ssrc = layer.rtxSSRC { routes[Self.key(receiver.publisher, ssrc)] = nil }
        }
        if receiver.isSimulcast {
            receiver.reportedActiveLayers = 0
            updatePublisherLayers(receiver)
        }
    }

    /// Removes a track and its DownTracks.
    public func removeReceiver(track: TrackID) {
        guard let receiver = receivers.removeValue(forKey: track) else { return }
        for downTrack in receiver.downTracks { removeDownTrack(track: track, subscriber: downTrack.subscriber) }
        for layer in [receiver] + receiver.higherLayers {
            if let ssrc = layer.primarySSRC { routes[Self.key(receiver.publisher, ssrc)] = nil }
            if let ssrc = layer.rtxSSRC { routes[Self.key(receiver.publisher, ssrc)] = nil }
        }
        publishers[receiver.publisher]?.receivers.removeAll { $0.track == track }
    }

    /// Enabled by the publisher and not interrupted (PROTOCOL.md 3.3). While
    /// off, nothing of the track is forwarded; turning it on asks for a
    /// keyframe at once (the next `tick` sends the PLI) and every DownTrack
    /// resumes at that keyframe with contiguous numbering.
    public func setForwarding(track: TrackID, enabled: Bool, now: MediaTime) throws(RouterError) {
        guard let receiver = receivers[track] else { throw .unknownTrack(track) }
        lastNow = now
        guard receiver.isForwarding != enabled else { return }
        receiver.isForwarding = enabled
        for layer in receiver.higherLayers { layer.isForwarding = enabled }
        for downTrack in receiver.downTracks {
            downTrack.munger.requestResync()
            if downTrack.selector != nil {
                downTrack.selector?.reset(now: now)
                downTrack.currentLayer = nil
            }
            noteSwitchOff(downTrack)
        }
        if receiver.isSimulcast { updatePublisherLayers(receiver) }
        if enabled && receiver.kind == .video {
            if receiver.isSimulcast {
                for downTrack in receiver.downTracks { wantKeyframe(receiver.layer(at: downTrack.targetLayer)) }
            } else {
                wantKeyframe(receiver)
            }
        }
    }

    // MARK: Subscribers and their DownTracks

    /// A subscriber connection and the IDs it negotiated for the mid and
    /// transport-cc extensions (nil: not written).
    public func addSubscriber(
        transport: TransportID, midExtensionID: UInt8?, transportCCExtensionID: UInt8?
    ) throws(RouterError) {
        guard publishers[transport] == nil, subscribers[transport] == nil else {
            throw .duplicateTransport(transport)
        }
        subscribers[transport] = SubscriberSession(
            transport: transport, midExtensionID: midExtensionID, transportCCExtensionID: transportCCExtensionID)
    }

    public func removeSubscriber(transport: TransportID) {
        guard let session = subscribers[transport] else { return }
        dropHeld(session)
        for downTrack in session.downTracks { removeDownTrack(track: downTrack.track, subscriber: transport) }
        subscribers[transport] = nil
    }

    /// Starts sending `track` to `subscriber` as `ssrc` with the payload
    /// type of the subscriber's SDP; repairs go on `rtxSSRC`/`rtxPayloadType`
    /// when both are given (the subscriber accepted RTX), else on `ssrc`.
    /// `mid` is the m-line's mid for the mid extension; `extensionCopies`
    /// carries audio-level, abs-send-time and the like. Video starts at the
    /// next keyframe: a PLI goes out at the next `tick`.
    public func addDownTrack(
        track: TrackID, subscriber: TransportID, ssrc: SSRC, rtxSSRC: SSRC? = nil, payloadType: UInt8,
        rtxPayloadType: UInt8? = nil, mid: String? = nil, extensionCopies: [HeaderExtensionCopy] = [],
        initialSequenceNumber: UInt16? = nil
    ) throws(RouterError) {
        guard let receiver = receivers[track] else { throw .unknownTrack(track) }
        guard let session = subscribers[subscriber] else { throw .unknownTransport(subscriber) }
        guard !session.downTracks.contains(where: { $0.track == track }) else {
            throw .duplicateDownTrack(track, subscriber)
        }
        for declared in [ssrc, rtxSSRC] {
            if let declared, downTrackRoutes[Self.key(subscriber, declared)] != nil { throw .ssrcInUse(declared) }
        }
        let downTrack = DownTrack(
            track: track, receiver: receiver, session: session, ssrc: ssrc, rtxSSRC: rtxSSRC,
            payloadType: payloadType, rtxPayloadType: rtxPayloadType, mid: mid, extensionCopies: extensionCopies,
            // Any start is valid (SRTP protects it); the SSRC's low bits vary it.
            initialSequenceNumber: initialSequenceNumber ?? UInt16(truncatingIfNeeded: ssrc.rawValue))
        if receiver.kind == .audio && session.audioPaused { downTrack.munger.pause() }
        receiver.downTracks.append(downTrack)
        session.downTracks.append(downTrack)
        downTrackRoutes[Self.key(subscriber, ssrc)] = downTrack
        if let rtx = downTrack.rtxSSRC { downTrackRoutes[Self.key(subscriber, rtx)] = downTrack }
        noteSwitchOff(downTrack)
        if receiver.isSimulcast {
            if let lastNow { updateLayer(downTrack, now: lastNow) }
            updatePublisherLayers(receiver)
        }
        if receiver.kind == .video && receiver.isForwarding { wantKeyframe(receiver.layer(at: downTrack.targetLayer)) }
    }

    public func removeDownTrack(track: TrackID, subscriber: TransportID) {
        guard let session = subscribers[subscriber],
            let downTrack = session.downTracks.first(where: { $0.track == track })
        else { return }
        session.downTracks.removeAll { $0 === downTrack }
        downTrack.receiver.downTracks.removeAll { $0 === downTrack }
        downTrackRoutes[Self.key(subscriber, downTrack.ssrc)] = nil
        if let rtx = downTrack.rtxSSRC { downTrackRoutes[Self.key(subscriber, rtx)] = nil }
        if downTrack.receiver.isSimulcast && receivers[track] === downTrack.receiver {
            updatePublisherLayers(downTrack.receiver)
        }
    }

    /// Pauses (or resumes) all audio forwarded TO `subscriber`: its audio
    /// interruption (PROTOCOL.md 3.3). Numbering and timestamps continue
    /// across the pause.
    public func setAudioPaused(subscriber: TransportID, paused: Bool) throws(RouterError) {
        guard let session = subscribers[subscriber] else { throw .unknownTransport(subscriber) }
        guard session.audioPaused != paused else { return }
        session.audioPaused = paused
        for downTrack in session.downTracks where downTrack.kind == .audio {
            if paused { downTrack.munger.pause() } else { downTrack.munger.resume() }
        }
    }

    // MARK: Stats

    /// The track's receive figures (jitter and loss as of the last RR).
    public func receiverStats(track: TrackID) -> ReceiverStats? { receivers[track]?.stats }

    /// What `subscriber` got of `track`, and what it reported.
    public func downTrackStats(track: TrackID, subscriber: TransportID) -> DownTrackStats? {
        subscribers[subscriber]?.downTracks.first { $0.track == track }?.stats
    }

    /// One simulcast layer's receive figures, by RID (`receiverStats` gives
    /// the lowest layer's).
    public func receiverStats(track: TrackID, rid: String) -> ReceiverStats? {
        guard let receiver = receivers[track] else { return nil }
        return (0..<receiver.layerCount).lazy.map { receiver.layer(at: $0) }.first { $0.rid == rid }?.stats
    }

    /// The SSRCs a track's receiver uses now (declared or learned; the
    /// lowest layer's for a simulcast track).
    public func receiverSSRCs(track: TrackID) -> (ssrc: SSRC?, rtxSSRC: SSRC?)? {
        receivers[track].map { ($0.primarySSRC, $0.rtxSSRC) }
    }

    // MARK: Learning SSRCs

    func bindPrimary(_ receiver: Receiver, _ ssrc: SSRC) {
        if let old = receiver.primarySSRC {
            routes[Self.key(receiver.publisher, old)] = nil
            receiver.switchSource()
            if receiver.kind == .video { wantKeyframe(receiver) }
        }
        receiver.primarySSRC = ssrc
        routes[Self.key(receiver.publisher, ssrc)] = Route(receiver: receiver, isRTX: false)
    }

    func bindRTX(_ receiver: Receiver, _ ssrc: SSRC) {
        if let old = receiver.rtxSSRC { routes[Self.key(receiver.publisher, old)] = nil }
        receiver.rtxSSRC = ssrc
        routes[Self.key(receiver.publisher, ssrc)] = Route(receiver: receiver, isRTX: true)
    }

    /// What `learnRoute` found for a new SSRC.
    enum LearnedRoute {
        case route(Route)
        case drop(DropReason)
    }

    /// The route for an SSRC seen for the first time: by the MID extension
    /// (Chrome, Firefox: first ~60 packets) and, for a simulcast track, the
    /// RID extension (repaired RID on RTX) naming the layer; without MID, by
    /// a RID only one layer of this publisher has, else by a payload type
    /// only one track of this publisher uses (aiortc without MID). A RID
    /// that names no layer is dropped as `.unknownRID`, never guessed. Runs
    /// once per SSRC, so its dictionary insert is not on the steady-state path.
    func learnRoute(_ packet: RTPPacketView, session: PublisherSession) -> LearnedRoute {
        let payloadType = packet.payloadType
        if let id = session.midExtensionID, let value = packet.extensionValue(id: id) {
            for receiver in session.receivers where receiver.layer == 0 && receiver.midBytes.elementsEqual(value) {
                let isRTX = payloadType != receiver.payloadType && payloadType == receiver.rtxPayloadType
                guard payloadType == receiver.payloadType || isRTX else { continue }
                var target = receiver
                if receiver.isSimulcast {
                    guard let rid = ridValue(packet, session: session, isRTX: isRTX) else { return .drop(.unknownSSRC) }
                    guard let index = (0..<receiver.layerCount).first(where: {
                        receiver.layer(at: $0).ridBytes.elementsEqual(rid)
                    }) else { return .drop(.unknownRID) }
                    target = receiver.layer(at: index)
                }
                if isRTX { bindRTX(target, packet.ssrc) } else { bindPrimary(target, packet.ssrc) }
                return .route(Route(receiver: target, isRTX: isRTX))
            }
            return .drop(.unknownSSRC)
        }
        let sawRID = session.ridExtensionID.flatMap { packet.extensionValue(id: $0) } != nil
            || session.repairedRIDExtensionID.flatMap { packet.extensionValue(id: $0) } != nil
        var match: Route?
        for receiver in session.receivers {
            let isPrimary = payloadType == receiver.payloadType && receiver.primarySSRC == nil
            let isRTX = payloadType == receiver.rtxPayloadType && receiver.rtxSSRC == nil
            guard isPrimary || isRTX else { continue }
            if receiver.isSimulcast {
                guard let rid = ridValue(packet, session: session, isRTX: isRTX && !isPrimary),
                    receiver.ridBytes.elementsEqual(rid)
                else { continue }
            }
            if match != nil { return .drop(.unknownSSRC) }  // not unique
            match = Route(receiver: receiver, isRTX: isRTX && !isPrimary)
        }
        guard let match else { return .drop(sawRID ? .unknownRID : .unknownSSRC) }
        if match.isRTX { bindRTX(match.receiver, packet.ssrc) } else { bindPrimary(match.receiver, packet.ssrc) }
        return .route(match)
    }

    /// The packet's RID: the repaired RID on RTX (RFC 8852 section 3.2),
    /// else the RID.
    func ridValue(_ packet: RTPPacketView, session: PublisherSession, isRTX: Bool) -> UnsafeRawBufferPointer? {
        if isRTX, let id = session.repairedRIDExtensionID, let value = packet.extensionValue(id: id) { return value }
        if let id = session.ridExtensionID, let value = packet.extensionValue(id: id) { return value }
        return nil
    }

    // MARK: Keyframe requests

    /// Marks a keyframe as wanted; `tick` (or the next packet) sends the PLI.
    func wantKeyframe(_ receiver: Receiver) {
        receiver.keyframeWanted = true
    }

    /// Asks for a keyframe now if the last request is at least
    /// `keyframeRequestInterval` old, else leaves it pending for `tick`.
    func requestKeyframe(_ receiver: Receiver, now: MediaTime, into sink: inout some PacketSink) {
        receiver.keyframeWanted = true
        if let last = receiver.lastKeyframeRequest, now.nanoseconds(since: last) < keyframeRequestInterval { return }
        sendPLI(receiver, now: now, into: &sink)
    }

    func sendPLI(_ receiver: Receiver, now: MediaTime, into sink: inout some PacketSink) {
        guard let mediaSSRC = receiver.primarySSRC, let session = publishers[receiver.publisher] else { return }
        if session.relayed {
            // The home worker's router asks the publisher (and throttles too).
            relayedKeyframeRequests.append(RelayedKeyframeRequest(publisher: receiver.publisher, ssrc: mediaSSRC))
        } else {
            let pli = PictureLossIndication(senderSSRC: session.rtcpSSRC, mediaSSRC: mediaSSRC)
            guard writeRTCP(pli, to: receiver.publisher, into: &sink) == .sent else { return }
            counters.pliSent &+= 1
        }
        receiver.stats.plisSent &+= 1
        receiver.lastKeyframeRequest = now
        receiver.keyframeWanted = false
    }
}

// MARK: - Relayed publishers

/// A keyframe a router wants of a relayed publisher's stream: the home
/// worker's router asks the publisher (`Router.requestKeyframe(publisher:ssrc:)`).
public struct RelayedKeyframeRequest: Sendable, Hashable {
    public let publisher: TransportID
    public let ssrc: SSRC
}

extension Router {
    /// The keyframe requests for relayed publishers since the last call.
    public func takeRelayedKeyframeRequests() -> [RelayedKeyframeRequest] {
        defer { relayedKeyframeRequests.removeAll(keepingCapacity: true) }
        return relayedKeyframeRequests
    }

    /// Another worker's router wants a keyframe of the stream `ssrc` of
    /// `publisher`: asked at the next `tick`, within `keyframeRequestInterval`
    /// of the last request like any other.
    public func requestKeyframe(publisher: TransportID, ssrc: SSRC) {
        guard let route = routes[Self.key(publisher, ssrc)], !route.isRTX, route.receiver.isForwarding else { return }
        wantKeyframe(route.receiver)
    }
}
