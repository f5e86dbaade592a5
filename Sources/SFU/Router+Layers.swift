import Packets

/// Per-subscriber layer controls (PROTOCOL.md section 7). Commands, not the
/// per-packet path: they may allocate. A change takes effect at the next
/// keyframe of the layer it selects (the router asks for one).
extension Router {
    /// Caps the layers `subscriber` gets of `track` at the smallest one at
    /// least this large (`setContentPreferences`; long side against long
    /// side, short against short, see `LayerSelector`); nil clears the cap.
    /// No effect on a track of one layer.
    public func setRenderDimensions(
        track: TrackID, subscriber: TransportID, width: Int?, height: Int?, now: MediaTime
    ) throws(RouterError) {
        let downTrack = try downTrack(track: track, subscriber: subscriber)
        lastNow = now
        guard downTrack.selector != nil else { return }
        if let width, let height, width > 0, height > 0 {
            downTrack.selector?.renderSize = (width, height)
        } else {
            downTrack.selector?.renderSize = nil
        }
        updateLayer(downTrack, now: now)
        updatePublisherLayers(downTrack.receiver)
    }

    /// Switches `track` off (or back on) for `subscriber` by its own
    /// request (`switchOffTrack` / `switchOnTrack`, reason
    /// `disabled-by-subscriber`): nothing of it goes out while off; back on,
    /// it resumes at a keyframe (asked for at once) with continuous
    /// numbering. Audio is never switched off: no effect, no event.
    public func setSwitchedOffBySubscriber(
        track: TrackID, subscriber: TransportID, _ off: Bool, now: MediaTime
    ) throws(RouterError) {
        let downTrack = try downTrack(track: track, subscriber: subscriber)
        lastNow = now
        guard downTrack.kind == .video, downTrack.switchedOffBySubscriber != off else { return }
        let wasHeld = downTrack.isHeld
        downTrack.switchedOffBySubscriber = off
        holdChanged(downTrack, wasHeld: wasHeld, now: now)
    }

    /// After a DownTrack's switch-off flags changed: pauses its munger when
    /// it became held, or resumes it at a keyframe (asked for at once, with
    /// continuous numbering) when it no longer is; emits the switch-off
    /// event and the publisher's layers.
    func holdChanged(_ downTrack: DownTrack, wasHeld: Bool, now: MediaTime) {
        let held = downTrack.isHeld
        if held != wasHeld {
            if held {
                downTrack.munger.pause()
            } else {
                downTrack.munger.resume()
            }
            if downTrack.selector != nil {
                downTrack.selector?.reset(now: now)
                downTrack.currentLayer = nil
                if !held { updateLayer(downTrack, now: now) }
            }
            if !held && downTrack.receiver.isForwarding { wantKeyframe(downTrack.source) }
        }
        noteSwitchOff(downTrack)
        if downTrack.receiver.isSimulcast { updatePublisherLayers(downTrack.receiver) }
    }

    /// The publisher's priority for its track.
    public func setPublisherPriority(track: TrackID, _ priority: TrackPriority) throws(RouterError) {
        guard let receiver = receivers[track] else { throw .unknownTrack(track) }
        receiver.priority = priority
    }

    /// A subscriber's own priority for a track (`setTrackPriority`); nil
    /// goes back to the publisher's.
    public func setSubscriberPriority(
        track: TrackID, subscriber: TransportID, _ priority: TrackPriority?
    ) throws(RouterError) {
        try downTrack(track: track, subscriber: subscriber).subscriberPriority = priority
    }

    /// The priority `track` has for `subscriber`: its own override, else the
    /// publisher's. Stored for the stream allocator; without a bandwidth
    /// limit it changes no layer choice.
    public func priority(track: TrackID, subscriber: TransportID) -> TrackPriority? {
        guard let downTrack = try? downTrack(track: track, subscriber: subscriber) else { return nil }
        return downTrack.subscriberPriority ?? downTrack.receiver.priority
    }

    /// Caps the VP8 temporal layers (TID) `subscriber` gets of `track` at
    /// `maxTemporalLayer` (0-3; nil: all). Lower takes effect at the next
    /// frame, higher at the next layer-sync frame or keyframe; what is left
    /// out leaves no hole in the subscriber's numbering.
    public func setTemporalLayerCap(
        track: TrackID, subscriber: TransportID, _ maxTemporalLayer: Int?
    ) throws(RouterError) {
        let downTrack = try downTrack(track: track, subscriber: subscriber)
        downTrack.subscriberTemporalCap = UInt8(clamping: min(maxTemporalLayer ?? 3, 3))
        downTrack.temporal.cap = min(downTrack.subscriberTemporalCap, downTrack.allocatedTemporalCap)
    }

    /// The RIDs of a simulcast track's layers, lowest first; empty for
    /// one layer or an unknown track.
    public func layerRIDs(track: TrackID) -> [String] {
        guard let receiver = receivers[track], receiver.isSimulcast else { return [] }
        return (0..<receiver.layerCount).compactMap { receiver.layer(at: $0).rid }
    }

    /// The layer events since the last call, oldest first.
    public func takeEvents() -> [RouterEvent] {
        for receiver in receivers.values where receiver.isSimulcast { updatePublisherLayers(receiver) }
        defer { events.removeAll() }
        return events
    }

    func downTrack(track: TrackID, subscriber: TransportID) throws(RouterError) -> DownTrack {
        guard receivers[track] != nil else { throw .unknownTrack(track) }
        guard let downTrack = subscribers[subscriber]?.downTracks.first(where: { $0.track == track }) else {
            throw .unknownTransport(subscriber)
        }
        return downTrack
    }

    // MARK: Deciding

    /// Re-decides one simulcast DownTrack's target layer at `now`; a new
    /// target that is not the current layer gets a keyframe request.
    /// Allocates nothing.
    func updateLayer(_ downTrack: DownTrack, now: MediaTime) {
        guard downTrack.selector != nil, downTrack.switchOffReason == nil else { return }
        let track = downTrack.receiver
        guard downTrack.selector?.update(now: now, layer: { track.selectorLayer($0, now: now) }) == true,
            let target = downTrack.selector?.target
        else { return }
        downTrack.targetLayer = target
        if target != downTrack.currentLayer && track.isForwarding { wantKeyframe(track.layer(at: target)) }
    }

    /// The tick's work for one simulcast track: each DownTrack's choice
    /// (layers that stopped, keyframes that did not come, back-offs over),
    /// keyframe requests while a switch waits, and the `publisherLayers`
    /// event. Returns when a pending switch times out.
    func updateLayers(_ track: Receiver, now: MediaTime) -> MediaTime? {
        var deadline: MediaTime?
        for downTrack in track.downTracks where downTrack.switchOffReason == nil {
            updateLayer(downTrack, now: now)
            guard let selector = downTrack.selector, selector.isSwitching else { continue }
            if track.isForwarding { wantKeyframe(track.layer(at: selector.target)) }
            if let since = selector.waitingSince {
                let timeout = since.adding(nanoseconds: LayerSelector.keyframeTimeout)
                deadline = min(deadline ?? timeout, timeout)
            }
        }
        updatePublisherLayers(track)
        return deadline
    }

    /// Emits `publisherLayers` when the set of needed layers changed: the
    /// lowest always (so a newcomer, or a DownTrack whose layer stops, has
    /// one to start on at once), and for each DownTrack that is on, the
    /// layer it forwards, its target, and the layer its render size asks
    /// for (live or not: a paused layer has to be asked back before it can
    /// be chosen).
    func updatePublisherLayers(_ track: Receiver) {
        guard track.isSimulcast else { return }
        var mask: UInt64 = 1
        for downTrack in track.downTracks where downTrack.switchOffReason == nil {
            guard let selector = downTrack.selector else { continue }
            if let current = downTrack.currentLayer { mask |= 1 << UInt64(current) }
            mask |= 1 << UInt64(selector.target)
            mask |= 1 << UInt64(selector.ideal)
            mask |= downTrack.neededLayers ?? 0
        }
        guard mask != track.reportedActiveLayers else { return }
        track.reportedActiveLayers = mask
        var active: [String] = []
        for index in 0..<track.layerCount where mask & (1 << UInt64(index)) != 0 {
            if let rid = track.layer(at: index).rid { active.append(rid) }
        }
        events.append(.publisherLayers(track: track.track, active: active))
    }

    /// Brings a DownTrack's switch-off figures up to date and emits
    /// `switchedOff` (with the new reason, also when only the reason
    /// changed) or `switchedOn`.
    func noteSwitchOff(_ downTrack: DownTrack) {
        let reason = downTrack.switchOffReason
        guard reason != downTrack.stats.switchOffReason else { return }
        downTrack.stats.switchOffReason = reason
        downTrack.stats.switchedOff = reason != nil
        downTrack.stats.layer = nil
        if let reason {
            events.append(.switchedOff(track: downTrack.track, subscriber: downTrack.subscriber, reason: reason))
        } else {
            events.append(.switchedOn(track: downTrack.track, subscriber: downTrack.subscriber))
        }
    }
}
