import Packets

/// One published track as the router receives it, read at one moment for
/// `/Stats`: the counters of `ReceiverStats` with loss and jitter brought up
/// to date (the stored ones change only at each RR), and the recent rate.
public struct ReceiverSnapshot: Sendable, Equatable {
    public var kind: MediaKind
    /// The publisher's SSRC now (declared or learned); nil before it is known.
    public var ssrc: SSRC?
    public var isForwarding: Bool
    public var stats: ReceiverStats
    /// Over about the last second; nil until the first report tick.
    public var rate: TrackRate?
}

/// What one subscriber gets of one track, read at one moment.
public struct DownTrackSnapshot: Sendable, Equatable {
    public var kind: MediaKind
    public var ssrc: SSRC
    public var stats: DownTrackStats
    /// A receiver report on this SSRC arrived: the loss and jitter in
    /// `stats` are the subscriber's (before it, they are only zeros).
    public var hasReport: Bool
    public var rate: TrackRate?
}

extension Router {
    /// `track` as received now: packets, bytes and NACK/PLI counts as they
    /// stand, cumulative loss and jitter of the current source computed now
    /// (RFC 3550 A.3 and A.8), the fraction lost of the last RR interval.
    /// A simulcast track's figures are its layers' together: counts, loss
    /// and rate summed, the worst jitter and fraction lost; `ssrc` is the
    /// lowest layer's.
    public func receiverSnapshot(track: TrackID, now: MediaTime) -> ReceiverSnapshot? {
        guard let receiver = receivers[track] else { return nil }
        var total: ReceiverStats?
        var rate: TrackRate?
        for index in 0..<receiver.layerCount {
            let layer = receiver.layer(at: index)
            var stats = layer.stats
            if layer.reception.baseSequence != nil {
                stats.lost = layer.reception.cumulativeLost
                stats.jitter = layer.reception.jitter
                stats.jitterSeconds = Double(layer.reception.jitter) / Double(layer.clockRate)
            }
            total = total.map { $0.adding(stats) } ?? stats
            if let layerRate = layer.rateMeter.rate(bytes: layer.stats.bytes, packets: layer.stats.packets, now: now) {
                rate = TrackRate(
                    bitsPerSecond: (rate?.bitsPerSecond ?? 0) + layerRate.bitsPerSecond,
                    packetsPerSecond: (rate?.packetsPerSecond ?? 0) + layerRate.packetsPerSecond)
            }
        }
        return ReceiverSnapshot(
            kind: receiver.kind, ssrc: receiver.primarySSRC, isForwarding: receiver.isForwarding,
            stats: total ?? receiver.stats, rate: rate)
    }

    /// What `subscriber` got of `track` and what its last receiver report said.
    public func downTrackSnapshot(track: TrackID, subscriber: TransportID, now: MediaTime) -> DownTrackSnapshot? {
        guard let downTrack = subscribers[subscriber]?.downTracks.first(where: { $0.track == track }) else { return nil }
        let stats = downTrack.stats
        return DownTrackSnapshot(
            kind: downTrack.kind, ssrc: downTrack.ssrc, stats: stats, hasReport: downTrack.previousReport != nil,
            rate: downTrack.rateMeter.rate(bytes: stats.bytes, packets: stats.packets, now: now))
    }

    /// The subscriber connection's newest round-trip time in seconds (from
    /// an RR's LSR/DLSR), while it is at most `roundTripTimeHold` old.
    public func roundTripTime(subscriber: TransportID, now: MediaTime) -> Double? {
        guard let rtt = subscribers[subscriber]?.roundTripTime, now.nanoseconds(since: rtt.at) <= roundTripTimeHold
        else { return nil }
        return rtt.seconds
    }

    /// Marks every receiver's and DownTrack's counters for their rates, and
    /// observes each subscriber's downlink estimate: once a second, at the
    /// report tick (not on the packet path).
    func markRates(now: MediaTime) {
        for receiver in receivers.values {
            for index in 0..<receiver.layerCount {
                let layer = receiver.layer(at: index)
                layer.rateMeter.mark(bytes: layer.stats.bytes, packets: layer.stats.packets, now: now)
            }
        }
        for session in subscribers.values {
            if session.hasDownlinkFeedback { counters.subscriberEstimates.observe(session.estimator.estimate) }
            for downTrack in session.downTracks {
                downTrack.rateMeter.mark(bytes: downTrack.stats.bytes, packets: downTrack.stats.packets, now: now)
            }
        }
    }
}

extension ReceiverStats {
    /// Two layers' figures as one track's: counts and loss summed, the
    /// worse jitter and fraction lost.
    func adding(_ other: ReceiverStats) -> ReceiverStats {
        var sum = self
        sum.packets &+= other.packets
        sum.bytes &+= other.bytes
        sum.lost &+= other.lost
        sum.fractionLost = max(fractionLost, other.fractionLost)
        if other.jitterSeconds > jitterSeconds {
            sum.jitter = other.jitter
            sum.jitterSeconds = other.jitterSeconds
        }
        sum.nacksSent &+= other.nacksSent
        sum.plisSent &+= other.plisSent
        sum.keyframes &+= other.keyframes
        sum.paddingDropped &+= other.paddingDropped
        sum.rtxProbesDropped &+= other.rtxProbesDropped
        sum.duplicates &+= other.duplicates
        sum.sourceChanges &+= other.sourceChanges
        return sum
    }
}
