import Packets

/// Shares one subscriber connection's downlink among its subscribed tracks
/// (PROTOCOL.md section 7, DESIGN.md "Adaptive video"): the bandwidth
/// estimate, each track's layers and their measured bitrates, priorities,
/// render sizes and the bandwidth profile go in; one `Allocation` per track
/// comes out, a layer (spatial and temporal) or switched off with
/// `network-congestion` or `max-bandwidth-reached`. Sans-I/O: the caller
/// passes `now` and applies the decisions; it runs a few times a second and
/// on every new estimate, not per packet, so it may allocate a little.
///
/// How it decides, with its numbers:
/// - Audio first: its bitrate comes off the estimate, and it is never
///   switched off. Video gets the rest, capped by `maxSubscriptionBitrate`
///   (tracks cut by the cap are `max-bandwidth-reached`).
/// - Each video track climbs a ladder of steps, cheapest first: the live
///   spatial layers up to its render cap (the layer `LayerSelector` would
///   pick), each with 1, 2, 3 temporal layers, so temporal layers go before
///   a spatial layer does (15 fps of 720p before 30 fps of 360p).
/// - Downgrades are immediate: while what is forwarded exceeds the budget,
///   the most expensive track (`grid`) or the lowest priority group's most
///   expensive track (`collaboration`, `presentation`) steps down; with all
///   at their lowest step, the lowest priority track (the last in track
///   order among equals) is switched off, if `trackSwitchOffMode` allows:
///   at once while what is forwarded exceeds the estimate by more than
///   25%, after 2 s of deficit within that (`switchOffTolerance`).
/// - Upgrades need headroom and time: a step up must fit within 90% of the
///   lowest estimate of the last 5 s (`hold`), and a track changes layer
///   at most once per 5 s unless it must go down. With an estimate that
///   wanders ±10%, the allocation stays below its lows and nothing moves.
///   LiveKit's allocator likewise goes down at once and up by steps after
///   probing; Twilio promises no more than one switch per 5 s on a steady
///   link. A track forwarding its render cap's layer whole (held by the
///   render size, not by bandwidth) climbs as soon as a larger render size
///   gives it more steps, within the headroom.
/// - A switched-off track comes back, highest priority first, when its
///   lowest step fits the same 90% headroom and its 5 s hold is over; a
///   lower priority one waits while a higher one is off.
public struct StreamAllocator: Sendable {
    /// A track's layer changes at most once per `hold` (5 s) except to go
    /// down, and upgrades are judged against the lowest estimate of the
    /// last `hold`.
    public static let hold: UInt64 = 5_000_000_000
    /// An upgrade or a return must fit within this per-mille of the
    /// estimate (90%: the 10% left absorbs the estimate's noise and a
    /// keyframe burst of the new layer).
    public static let upgradeHeadroom = 900
    /// A switch-off for congestion waits `switchOffDelay` (2 s) while what
    /// is forwarded exceeds the estimate by at most this per-mille (125%);
    /// a larger deficit switches off at once. Both sides are noisy where a
    /// track is alone at its lowest layer: one delay-based cut sets the
    /// estimate to 0.87 of the acknowledged rate, which is what is being
    /// sent, and a keyframe in the 1-2 s window a layer is measured over
    /// raised a 330 kbit/s track to 410-460. Switched off at the first
    /// allocation that did not fit, bwe-grid's high-priority track (330
    /// kbit/s on a 600 kbit/s link) went off three times in 20 s, each time
    /// for 5 s or more. A link that really lacks the rate overuses or drops
    /// again: the next cut leaves the band, or the deficit outlasts the
    /// delay.
    public static let switchOffTolerance = 1250
    public static let switchOffDelay: UInt64 = 2_000_000_000

    public var profile: AllocationProfile
    /// What every track would need at its render cap (audio included,
    /// video within `maxSubscriptionBitrate`; a paused render-cap layer at
    /// its last known rate), as of the last allocation: the caller probes
    /// for it while it is above the estimate.
    public private(set) var wantedBitrate = 0
    /// What the last allocation is expected to send, audio included.
    public private(set) var allocatedBitrate = 0

    /// What each track got at the last allocation (only tracks the
    /// allocator decides: video, on or switched off for bandwidth).
    private var forwarded: [TrackID: Forwarded] = [:]
    /// Estimates of the last `hold`, oldest first.
    private var recentBudgets: [(time: MediaTime, bitrate: Int)] = []
    private var previousBudget: Int?
    /// Since when the tracks, all at their lowest steps, have not fitted
    /// the estimate (nil: they fit).
    private var deficitSince: MediaTime?

    private struct Forwarded: Sendable {
        /// The layer forwarded; nil: switched off for `reason`.
        var layer: (spatial: Int, temporal: Int)?
        var reason: SwitchOffReason
        var lastChange: MediaTime
        /// The layer was the top of its ladder and the render cap's own: a
        /// larger render size may be taken at once, hold or not.
        var atTop: Bool
    }

    /// One rung of a track's ladder.
    private struct Step {
        var spatial: Int
        var temporal: Int
        var bitrate: Int
    }

    /// A video track being decided in this call.
    private struct Candidate {
        var index: Int
        var priority: TrackPriority
        var ladder: [Step]
        /// The ladder index forwarded; nil: switched off.
        var step: Int?
        var reason: SwitchOffReason
        /// Not forwarded by the allocator before (new, back from a manual
        /// switch-off, or a layer just came live).
        var isNew: Bool
        /// Its hold is over and it has not gone down in this call.
        var mayUpgrade: Bool
        /// The render cap's layer and its stated bitrate (live or not).
        var ideal: AllocatorLayer
        var bitrate: Int { step.map { ladder[$0].bitrate } ?? 0 }
        var top: Int { ladder[ladder.count - 1].bitrate }

        /// One step down, or off when `reason` is given; what it frees.
        mutating func goDown(off reason: SwitchOffReason? = nil) -> Int {
            guard let step else { return 0 }
            let before = ladder[step].bitrate
            mayUpgrade = false
            if let reason {
                self.step = nil
                self.reason = reason
                return before
            }
            guard step > 0 else { return 0 }
            self.step = step - 1
            return before - ladder[step - 1].bitrate
        }
    }

    /// Set by `headroomConfirmed`: the next allocation may upgrade every
    /// track at once, against the estimate of that moment.
    private var confirmed = false

    public init(profile: AllocationProfile = AllocationProfile()) {
        self.profile = profile
    }

    /// A probe showed the link carries the current estimate: the next
    /// allocation judges upgrades against it alone (the lower estimates of
    /// the last 5 s are forgotten) and lets every track climb, hold or not.
    /// The estimate's noise is what the 5 s rules guard against; a probe's
    /// result is a measurement of headroom, as LiveKit's allocator takes it.
    public mutating func headroomConfirmed() {
        recentBudgets.removeAll()
        confirmed = true
    }

    /// Decides every track of `tracks` (in their order) for the estimate
    /// `budget` (bits/s) at `now`. Tracks absent from `tracks` are
    /// forgotten.
    public mutating func allocate(budget: Int, tracks: [AllocatorTrack], now: MediaTime) -> [Allocation] {
        var audio = 0
        for track in tracks where track.kind == .audio { audio += track.layers.first?.bitrate ?? 0 }

        defer { confirmed = false }
        recentBudgets.removeAll { now.nanoseconds(since: $0.time) >= Self.hold }
        recentBudgets.append((now, budget))
        let lowest = recentBudgets.reduce(budget) { min($0, $1.bitrate) }
        let estimateFell = previousBudget.map { budget < $0 } ?? false
        previousBudget = budget

        let maxVideo = profile.maxSubscriptionBitrate ?? Int.max
        let estimateVideo = max(0, budget - audio)
        let videoBudget = min(estimateVideo, maxVideo)
        let upgradeEstimate = max(0, lowest * Self.upgradeHeadroom / 1000 - audio)
        let upgradeBudget = min(upgradeEstimate, maxVideo)
        let cutReason: SwitchOffReason = maxVideo < estimateVideo ? .maxBandwidthReached : .networkCongestion
        let returnReason: SwitchOffReason = maxVideo < upgradeEstimate ? .maxBandwidthReached : .networkCongestion

        var candidates = buildCandidates(tracks, now: now)
        var total = candidates.reduce(0) { $0 + $1.bitrate }

        // Congestion is detected when the estimator lowered its estimate
        // below what is being forwarded.
        let mayCut: Bool
        switch profile.trackSwitchOffMode {
        case .predicted: mayCut = true
        case .detected: mayCut = estimateFell && total > videoBudget
        case .disabled: mayCut = false
        }

        // Presentation: the highest priority group's full need is reserved
        // first; the others go down (and off) to make room for it. While
        // the group is below its need, room is made within the upgrade
        // headroom (so it can climb when its hold is over); once it has it,
        // the others only go down when the estimate itself no longer holds
        // everything (so noise does not move them).
        let topPriority = candidates.map(\.priority).max()
        var reserve = 0
        if profile.mode == .presentation, let topPriority {
            var topTotal = 0
            for candidate in candidates where candidate.priority == topPriority {
                reserve += candidate.top
                topTotal += candidate.bitrate
            }
            let limit = topTotal < reserve ? min(videoBudget, upgradeBudget) : videoBudget
            var others = total - topTotal
            while others + reserve > limit {
                let released: Int
                if let victim = stepDownVictim(candidates, below: topPriority) {
                    released = candidates[victim].goDown()
                } else if mayCut, let victim = switchOffVictim(candidates, below: topPriority) {
                    released = candidates[victim].goDown(off: cutReason)
                } else {
                    break
                }
                others -= released
                total -= released
            }
        }

        // Everyone: down until what is forwarded fits the estimate, steps
        // first (at once), then switch-offs (see `switchOffTolerance`).
        while total > videoBudget, let victim = stepDownVictim(candidates, below: nil) {
            total -= candidates[victim].goDown()
        }
        if total <= videoBudget {
            deficitSince = nil
        } else if deficitSince == nil && mayCut {
            deficitSince = now
        }
        if let since = deficitSince, profile.trackSwitchOffMode != .disabled {
            let lasted = now.nanoseconds(since: since) >= Self.switchOffDelay
            while total > videoBudget,
                lasted || cutReason == .maxBandwidthReached || total * 1000 > videoBudget * Self.switchOffTolerance,
                let victim = switchOffVictim(candidates, below: nil)
            {
                total -= candidates[victim].goDown(off: cutReason)
            }
            if total <= videoBudget { deficitSince = nil }
        }

        // Up, within the headroom, in the mode's order.
        let order = candidates.indices.sorted {
            let (a, b) = (candidates[$0], candidates[$1])
            return a.priority != b.priority ? a.priority > b.priority : a.index < b.index
        }
        switch profile.mode {
        case .grid:
            bringBack(&candidates, order: order, group: nil, total: &total, limit: upgradeBudget, reason: returnReason)
            climb(&candidates, group: nil, total: &total, limit: upgradeBudget)
        case .collaboration:
            bringBack(&candidates, order: order, group: nil, total: &total, limit: upgradeBudget, reason: returnReason)
            for priority in TrackPriority.allCases.reversed() {
                climb(&candidates, group: { $0 == priority }, total: &total, limit: upgradeBudget)
            }
        case .presentation:
            if let topPriority {
                let isTop: (TrackPriority) -> Bool = { $0 == topPriority }
                bringBack(&candidates, order: order, group: isTop, total: &total, limit: upgradeBudget, reason: returnReason)
                climb(&candidates, group: isTop, total: &total, limit: upgradeBudget)
                // What the top group will still take once its holds are over.
                var gap = reserve
                for candidate in candidates where candidate.priority == topPriority { gap -= candidate.bitrate }
                let limit = upgradeBudget - max(0, gap)
                bringBack(&candidates, order: order, group: { $0 < topPriority }, total: &total, limit: limit, reason: returnReason)
                for priority in TrackPriority.allCases.reversed() where priority < topPriority {
                    climb(&candidates, group: { $0 == priority }, total: &total, limit: limit)
                }
            }
        }

        // The render cap's layer is asked of the publisher against the
        // estimate of now, not the lowest of the last 5 s: a paused layer
        // takes a second or two to come back (its keyframe), and asked
        // only once the window allows the step, the step waited for it
        // again (bwe-cut: f came 7-8 s after the probe that found the
        // restored link, 5 s of them the window).
        let resumeBudget = min(max(0, budget * Self.upgradeHeadroom / 1000 - audio), maxVideo)
        return finish(tracks, candidates, audio: audio, total: total, maxVideo: maxVideo, resumeBudget: resumeBudget, now: now)
    }

    // MARK: Steps of one allocation

    /// The video tracks the allocator decides, with their ladders and what
    /// they had before.
    private func buildCandidates(_ tracks: [AllocatorTrack], now: MediaTime) -> [Candidate] {
        var candidates: [Candidate] = []
        candidates.reserveCapacity(tracks.count)
        for (index, track) in tracks.enumerated() where track.kind == .video && track.switchedOff == nil {
            guard !track.layers.isEmpty else { continue }
            let ideal = idealIndex(track)
            let ladder = Self.ladder(track.layers, ideal: ideal)
            guard !ladder.isEmpty else { continue }
            let priority = track.isDominantSpeaker ? max(track.priority, profile.dominantSpeakerPriority) : track.priority
            var candidate = Candidate(
                index: index, priority: priority, ladder: ladder, step: nil, reason: .networkCongestion,
                isNew: true, mayUpgrade: true, ideal: track.layers[ideal])
            if let previous = forwarded[track.track] {
                candidate.isNew = false
                candidate.reason = previous.reason
                candidate.mayUpgrade =
                    confirmed || previous.atTop || now.nanoseconds(since: previous.lastChange) >= Self.hold
                if let layer = previous.layer {
                    // The same layer, or the best one below it when the
                    // render cap fell or the layer stopped.
                    let step = ladder.lastIndex { ($0.spatial, $0.temporal) <= (layer.spatial, layer.temporal) } ?? 0
                    candidate.step = step
                    if (ladder[step].spatial, ladder[step].temporal) != (layer.spatial, layer.temporal) {
                        candidate.mayUpgrade = false
                    }
                }
            }
            candidates.append(candidate)
        }
        return candidates
    }

    /// The index of the layer `LayerSelector` would pick for the render
    /// size (the highest without one).
    private func idealIndex(_ track: AllocatorTrack) -> Int {
        guard let render = track.renderSize else { return track.layers.count - 1 }
        return LayerSelector.coveringLayer(render: (render.width, render.height), layerCount: track.layers.count) {
            (track.layers[$0].width, track.layers[$0].height)
        }
    }

    /// Live layers up to `ideal` (or, none being live, the lowest live one
    /// above it, as `LayerSelector` does), each temporal layer a step;
    /// a step that costs no more than the one before it is left out, so
    /// the ladder's bitrates rise.
    private static func ladder(_ layers: [AllocatorLayer], ideal: Int) -> [Step] {
        var ladder: [Step] = []
        func add(_ layer: AllocatorLayer) {
            for (temporal, bitrate) in layer.temporalBitrates.enumerated() where bitrate > (ladder.last?.bitrate ?? -1) {
                ladder.append(Step(spatial: layer.spatial, temporal: temporal, bitrate: bitrate))
            }
        }
        for layer in layers[...ideal] where layer.isLive { add(layer) }
        if ladder.isEmpty, let above = layers[(ideal + 1)...].first(where: \.isLive) { add(above) }
        return ladder
    }

    /// Who steps down next: in `grid` the most expensive track; otherwise
    /// the most expensive of the lowest priority group that can step down.
    /// Among equals the lower priority, then the later track. Only tracks
    /// below `below` when given.
    private func stepDownVictim(_ candidates: [Candidate], below: TrackPriority?) -> Int? {
        var victim: Int?
        for (i, candidate) in candidates.enumerated() {
            guard let step = candidate.step, step > 0 else { continue }
            if let below, candidate.priority >= below { continue }
            guard let v = victim else {
                victim = i
                continue
            }
            let current = candidates[v]
            let better: Bool
            if profile.mode != .grid && candidate.priority != current.priority {
                better = candidate.priority < current.priority
            } else if candidate.bitrate != current.bitrate {
                better = candidate.bitrate > current.bitrate
            } else {
                better = candidate.priority <= current.priority
            }
            if better { victim = i }
        }
        return victim
    }

    /// Who is switched off next: the lowest priority, the later track
    /// among equals. Only tracks below `below` when given.
    private func switchOffVictim(_ candidates: [Candidate], below: TrackPriority?) -> Int? {
        var victim: Int?
        for (i, candidate) in candidates.enumerated() where candidate.step != nil {
            if let below, candidate.priority >= below { continue }
            if let v = victim, candidate.priority > candidates[v].priority { continue }
            victim = i
        }
        return victim
    }

    /// Switched-off tracks of `group`, highest priority first, get their
    /// lowest step when it fits `limit` and their hold is over; the first
    /// that does not fit or is still held stops the rest (a lower priority
    /// track never comes back ahead of a higher one, not even of one just
    /// switched off, whose step the lower one would take). A new track that
    /// does not fit is off at once only with `predicted`; `detected` and
    /// `disabled` give it its lowest step until congestion shows.
    private func bringBack(
        _ candidates: inout [Candidate], order: [Int], group: ((TrackPriority) -> Bool)?,
        total: inout Int, limit: Int, reason: SwitchOffReason
    ) {
        var blocked = false
        for i in order where candidates[i].step == nil {
            if let group, !group(candidates[i].priority) { continue }
            guard candidates[i].isNew || candidates[i].mayUpgrade else {
                blocked = true
                continue
            }
            let lowest = candidates[i].ladder[0].bitrate
            if !blocked && total + lowest <= limit {
                candidates[i].step = 0
                total += lowest
            } else if profile.trackSwitchOffMode == .disabled
                || (candidates[i].isNew && profile.trackSwitchOffMode == .detected)
            {
                candidates[i].step = 0
                candidates[i].mayUpgrade = false
                total += lowest
            } else {
                candidates[i].reason = reason
                blocked = true
            }
        }
    }

    /// Round-robin in track order: each forwarded track of `group` whose
    /// hold is over goes one step up per pass while the step fits `limit`.
    private func climb(
        _ candidates: inout [Candidate], group: ((TrackPriority) -> Bool)?, total: inout Int, limit: Int
    ) {
        var progressed = true
        while progressed {
            progressed = false
            for i in candidates.indices {
                guard candidates[i].mayUpgrade, let step = candidates[i].step, step + 1 < candidates[i].ladder.count
                else { continue }
                if let group, !group(candidates[i].priority) { continue }
                let delta = candidates[i].ladder[step + 1].bitrate - candidates[i].ladder[step].bitrate
                guard total + delta <= limit else { continue }
                candidates[i].step = step + 1
                total += delta
                progressed = true
            }
        }
    }

    /// The decisions in `tracks`' order; remembers them for the next call.
    private mutating func finish(
        _ tracks: [AllocatorTrack], _ candidates: [Candidate], audio: Int, total: Int, maxVideo: Int,
        resumeBudget: Int, now: MediaTime
    ) -> [Allocation] {
        var next: [TrackID: Forwarded] = [:]
        next.reserveCapacity(candidates.count)
        var allocations: [Allocation] = []
        allocations.reserveCapacity(tracks.count)
        var wantedVideo = 0
        var c = 0
        for (index, track) in tracks.enumerated() {
            if c < candidates.count && candidates[c].index == index {
                let candidate = candidates[c]
                c += 1
                // The render cap's layer even while paused (its last
                // measured or stated rate): what is wanted is what probes
                // look for. With the top layer paused because nobody took
                // it, the wanted rate would be what is sent, and a link
                // that widened again would only be found by the idle
                // probes, doubling every 5 s.
                wantedVideo += max(candidate.top, candidate.ideal.bitrate)
                let decision: Allocation.Decision
                var needed: UInt64 = 0
                var layer: (spatial: Int, temporal: Int)?
                var atTop = false
                if let step = candidate.step {

                    let chosen = candidate.ladder[step]
                    // Held by the render cap alone (its layer is live and
                    // forwarded whole), not by bandwidth or by a layer
                    // that stopped (a publisher's layers may come and go).
                    atTop = step == candidate.ladder.count - 1 && chosen.spatial == candidate.ideal.spatial
                    layer = (chosen.spatial, chosen.temporal)
                    decision = .forward(spatial: chosen.spatial, temporal: chosen.temporal)
                    needed = 1 << UInt64(chosen.spatial)
                    // Below the render cap's layer while it would fit the
                    // estimate (its hold or the 5 s window not over, or the
                    // layer paused): keep it asked for, live or not. Asked
                    // only while paused, a lone viewer's f came back, was
                    // live but not taken yet (hold), was no longer needed,
                    // paused again 1.5 s later, and so on: the viewer
                    // never left q.
                    if candidate.ideal.spatial > chosen.spatial
                        && total - chosen.bitrate + candidate.ideal.bitrate <= resumeBudget
                    {
                        needed |= 1 << UInt64(candidate.ideal.spatial)
                    }
                } else {
                    decision = .switchedOff(candidate.reason)
                }
                var lastChange = now
                if let previous = forwarded[track.track], !candidate.isNew,
                    previous.layer?.spatial == layer?.spatial && previous.layer?.temporal == layer?.temporal
                {
                    lastChange = previous.lastChange
                }
                next[track.track] = Forwarded(layer: layer, reason: candidate.reason, lastChange: lastChange, atTop: atTop)
                allocations.append(
                    Allocation(track: track.track, decision: decision, bitrate: candidate.bitrate, neededLayers: needed))
            } else if track.kind == .audio {
                let bitrate = track.layers.first?.bitrate ?? 0
                allocations.append(
                    Allocation(track: track.track, decision: .forward(spatial: 0, temporal: 0), bitrate: bitrate, neededLayers: 1))
            } else if let reason = track.switchedOff {
                allocations.append(Allocation(track: track.track, decision: .switchedOff(reason), bitrate: 0, neededLayers: 0))
            } else {
                // No layer is live: nothing flows to share; the router's
                // LayerSelector waits for the render cap's layer.
                let layer = track.layers.isEmpty ? nil : track.layers[idealIndex(track)]
                allocations.append(
                    Allocation(
                        track: track.track,
                        decision: .forward(spatial: layer?.spatial ?? 0, temporal: (layer?.temporalBitrates.count ?? 1) - 1),
                        bitrate: 0, neededLayers: layer.map { 1 << UInt64($0.spatial) } ?? 0))
            }
        }
        forwarded = next
        allocatedBitrate = audio + total
        wantedBitrate = audio + min(wantedVideo, maxVideo)
        return allocations
    }
}
