import Packets

/// The downlink controller of each subscriber connection (issue 13,
/// PROTOCOL.md section 7): every `allocationInterval` its estimate goes
/// through its `StreamAllocator`, and the decisions become each DownTrack's
/// caps: the highest spatial layer its `LayerSelector` may choose, the
/// highest temporal layer its filter lets through, or switched off with
/// `network-congestion` or `max-bandwidth-reached`. What the allocator
/// wants beyond the estimate is probed for (`Router+Probing`).
///
/// A connection is allocated once its client has said something about its
/// downlink (transport-cc feedback or REMB), or when its bandwidth profile
/// caps the bitrate. Before that, and for clients that never say (aiortc
/// sends neither), nothing is capped: the render size alone picks the layer,
/// as without an estimate. Browsers send their first feedback within about
/// 100 ms of the first packet.
extension Router {
    /// How often each subscriber connection's allocation is redone. Five
    /// times a second: a fall in the estimate is acted on within 200 ms
    /// (the estimator itself reacts within a feedback round or two).
    public static let allocationInterval: UInt64 = 200_000_000

    /// How long after the first feedback the start estimate is treated as
    /// a guess (see `allocate`): the start probes answer within a few
    /// hundred milliseconds.
    static let startupGrace: UInt64 = 1_000_000_000

    /// How long after the first feedback a probe's result is taken at once
    /// (`StreamAllocator.headroomConfirmed`): the start probes' climb.
    static let startupRamp: UInt64 = 10_000_000_000

    /// A layer counts as flowing while its last packet is this recent.
    static let flowingWithin: UInt64 = 200_000_000

    /// What an audio track is assumed to cost before its rate is measured
    /// (Opus at Chrome's default 32 kbit/s, with RTP headers).
    static let assumedAudioBitrate = 40_000

    /// The bandwidth profile of `subscriber` (join's
    /// `bandwidthProfile.video`): mode, switch-off mode, the dominant
    /// speaker's priority and `maxSubscriptionBitrate`. Applied at the next
    /// allocation.
    public func setAllocationProfile(subscriber: TransportID, _ profile: AllocationProfile) throws(RouterError) {
        guard let session = subscribers[subscriber] else { throw .unknownTransport(subscriber) }
        guard session.allocator.profile != profile else { return }
        session.allocator.profile = profile
        session.nextAllocation = nil
    }

    /// The room's dominant speaker, by its publisher connection; nil: none.
    public func setDominantSpeaker(publisher: TransportID?) {
        guard dominantSpeaker != publisher else { return }
        dominantSpeaker = publisher
        for session in subscribers.values { session.nextAllocation = nil }
    }

    /// What the allocator last decided for `subscriber`: the bitrate it
    /// expects to send and the bitrate it would need for every track at
    /// its render size. Nil while the connection is not allocated.
    public func allocationFigures(subscriber: TransportID) -> (allocated: Int, wanted: Int)? {
        guard let session = subscribers[subscriber], session.isAllocating else { return nil }
        return (session.allocator.allocatedBitrate, session.allocator.wantedBitrate)
    }

    /// Adds the subscribed video tracks switched off now, by reason, to
    /// `counts` (`vroom_tracks_switched_off`).
    public func countSwitchedOff(into counts: inout [SwitchOffReason: Int]) {
        for session in subscribers.values {
            for downTrack in session.downTracks {
                if let reason = downTrack.switchOffReason { counts[reason, default: 0] += 1 }
            }
        }
    }

    /// The tick's allocation work: each connection that is due. Returns the
    /// earliest next one.
    func allocateDue(now: MediaTime) -> MediaTime? {
        var deadline: MediaTime?
        for session in subscribers.values {
            if let next = session.nextAllocation, now < next {
                deadline = min(deadline ?? next, next)
                continue
            }
            allocate(session, now: now)
            let next = now.adding(nanoseconds: Self.allocationInterval)
            session.nextAllocation = next
            deadline = min(deadline ?? next, next)
        }
        return deadline
    }

    /// One allocation of `session`'s downlink, applied to its DownTracks.
    func allocate(_ session: SubscriberSession, now: MediaTime) {
        let profile = session.allocator.profile
        let active = session.hasDownlinkFeedback || profile.maxSubscriptionBitrate != nil
        guard active else {
            if session.isAllocating { release(session, now: now) }
            return
        }
        session.isAllocating = true
        // Without feedback only the profile's cap limits: an estimate that
        // is never fed must not.
        let budget = session.hasDownlinkFeedback ? Int(session.estimator.estimate) : Int(Int32.max)
        // A probe that raised the estimate in the first seconds of feedback
        // (the start probes, climbing from the 300 kbit/s guess) is used
        // at once. Later ones raise the estimate but upgrades keep their
        // 5 s rules: a shaper's bucket can make a probe read high (htb
        // measured it), and acting on every probe at once flapped layers
        // every few seconds on such a link.
        if session.estimator.probeJumps != session.probeJumpsSeen {
            session.probeJumpsSeen = session.estimator.probeJumps
            if let first = session.firstFeedback, now.nanoseconds(since: first) < Self.startupRamp {
                session.allocator.headroomConfirmed()
            }
        }
        let tracks = session.downTracks.map { allocatorTrack($0, now: now) }
        // The first second after feedback starts, before the start probes
        // answered: the 300 kbit/s start estimate is a guess, not a
        // measurement, so a track that does not fit it gets its lowest
        // layer rather than a switch-off (`predicted` acts as `detected`):
        // no trackSwitchedOff/On pair at every join.
        let guessing = session.estimator.probeJumps == 0 && session.remb == nil
            && session.firstFeedback.map { now.nanoseconds(since: $0) < Self.startupGrace } == true
        if guessing && profile.trackSwitchOffMode == .predicted { session.allocator.profile.trackSwitchOffMode = .detected }
        let allocations = session.allocator.allocate(budget: budget, tracks: tracks, now: now)
        session.allocator.profile.trackSwitchOffMode = profile.trackSwitchOffMode
        for (downTrack, allocation) in zip(session.downTracks, allocations) where downTrack.kind == .video {
            apply(allocation, to: downTrack, now: now)
        }
        if session.hasDownlinkFeedback {
            pace(session)
            // Probe past what is wanted by the allocator's headroom: an
            // upgrade must fit 90% of the estimate, so an estimate that
            // only reached the wanted rate would never allow the last step
            // (a lone viewer on q, f paused: it stayed on q).
            let target = session.allocator.wantedBitrate * 1000 / StreamAllocator.upgradeHeadroom
            session.estimator.requestProbe(targetBitsPerSecond: UInt64(target), now: now)
        }
    }

    /// The connection stopped being allocated (its profile lost its cap
    /// before any feedback came): every cap goes.
    private func release(_ session: SubscriberSession, now: MediaTime) {
        session.isAllocating = false
        for downTrack in session.downTracks where downTrack.kind == .video {
            let wasHeld = downTrack.isHeld
            downTrack.switchedOffByAllocator = nil
            downTrack.allocatedTemporalCap = TemporalLayerFilter.all
            downTrack.temporal.cap = downTrack.subscriberTemporalCap
            downTrack.neededLayers = nil
            downTrack.selector?.maxLayer = nil
            if wasHeld != downTrack.isHeld {
                holdChanged(downTrack, wasHeld: wasHeld, now: now)
            } else {
                updateLayer(downTrack, now: now)
            }
        }
    }

    /// One DownTrack's decision: its caps, or its switch-off.
    private func apply(_ allocation: Allocation, to downTrack: DownTrack, now: MediaTime) {
        let wasHeld = downTrack.isHeld
        let wasOff = downTrack.switchedOffByAllocator
        switch allocation.decision {
        case .forward(let spatial, let temporal):
            downTrack.switchedOffByAllocator = nil
            // Temporal index i means TIDs 0...i; a stream without TIDs
            // has one step, which is all of it.
            let layer = downTrack.receiver.layer(at: min(spatial, downTrack.receiver.layerCount - 1))
            downTrack.allocatedTemporalCap =
                layer.highestTemporalLayer == nil ? TemporalLayerFilter.all : UInt8(clamping: temporal)
            downTrack.selector?.maxLayer = spatial
            downTrack.neededLayers = allocation.neededLayers
        case .switchedOff(let reason):
            switch reason {
            case .networkCongestion, .maxBandwidthReached:
                downTrack.switchedOffByAllocator = reason
                downTrack.neededLayers = 0
            case .disabledBySubscriber, .disabledByPublisher:
                // Not the allocator's: the DownTrack already knows.
                downTrack.switchedOffByAllocator = nil
                downTrack.neededLayers = nil
            }
        }
        downTrack.temporal.cap = min(downTrack.subscriberTemporalCap, downTrack.allocatedTemporalCap)
        if wasHeld != downTrack.isHeld || wasOff != downTrack.switchedOffByAllocator {
            holdChanged(downTrack, wasHeld: wasHeld, now: now)
        } else {
            updateLayer(downTrack, now: now)
        }
    }

    /// A DownTrack as the allocator sees it: the track's layers with their
    /// sizes, liveness and measured bitrates, the effective priority, the
    /// render size, and a switch-off that is not the allocator's.
    private func allocatorTrack(_ downTrack: DownTrack, now: MediaTime) -> AllocatorTrack {
        let track = downTrack.receiver
        guard downTrack.kind == .video else {
            return AllocatorTrack(audio: downTrack.track, bitrate: measuredBitrate(track, now: now) ?? Self.assumedAudioBitrate)
        }
        var layers: [AllocatorLayer] = []
        layers.reserveCapacity(track.layerCount)
        for index in 0..<track.layerCount {
            let layer = track.layer(at: index)
            let size = track.layerSize(index)
            let bitrate = measuredBitrate(layer, now: now) ?? Self.assumedVideoBitrate(width: size.width, height: size.height)
            layers.append(
                AllocatorLayer(
                    spatial: index, width: size.width, height: size.height, bitrate: bitrate,
                    temporalLayers: layer.highestTemporalLayer.map { Int($0) + 1 } ?? 1,
                    // One layer: nothing to choose between; it is what comes.
                    isLive: !track.isSimulcast || layer.isLive(now: now)))
        }
        var switchedOff: SwitchOffReason?
        if downTrack.switchedOffBySubscriber {
            switchedOff = .disabledBySubscriber
        } else if !track.isForwarding {
            switchedOff = .disabledByPublisher
        }
        let render = downTrack.selector?.renderSize.map { AllocatorTrack.RenderSize(width: $0.width, height: $0.height) }
        return AllocatorTrack(
            video: downTrack.track, layers: layers, priority: downTrack.subscriberPriority ?? track.priority,
            isDominantSpeaker: dominantSpeaker != nil && dominantSpeaker == track.publisher, renderSize: render,
            switchedOff: switchedOff)
    }

    /// A layer's bitrate over about the last second while packets flow,
    /// else the last one measured while they did; nil when never measured.
    /// A layer that paused is not measured as it fades (its 1-2 s window
    /// empties over the next seconds): that would keep a fraction of its
    /// rate, and a subscriber that wants it back would want too little to
    /// probe for it.
    private func measuredBitrate(_ layer: Receiver, now: MediaTime) -> Int? {
        if let last = layer.lastMediaArrival, now.nanoseconds(since: last) < Self.flowingWithin,
            let rate = layer.rateMeter.rate(bytes: layer.stats.bytes, packets: layer.stats.packets, now: now),
            rate.bitsPerSecond > 0
        {
            layer.lastMeasuredBitrate = Int(rate.bitsPerSecond)
        }
        return layer.lastMeasuredBitrate
    }

    /// What a VP8 layer of this size is assumed to cost before it was ever
    /// measured: 2 bits per pixel per second, about libwebrtc's simulcast
    /// defaults (320x180: 115 kbit/s, 640x360: 460 kbit/s, 1280x720: 1.8
    /// Mbit/s), at least 50 kbit/s.
    static func assumedVideoBitrate(width: Int, height: Int) -> Int {
        max(50_000, width * height * 2)
    }
}
