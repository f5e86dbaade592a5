import Packets

/// What subscriber connections say about their downlink (issue 13):
/// transport-cc feedback mapped back to what was sent, and REMB. The
/// downlink estimator (one per subscriber connection) takes it as it
/// comes; `takePacketFeedback` gives the newest report's packets to tests.
extension Router {
    /// The packets the newest feedback from `subscriber` reported (once),
    /// each with its send time, size and arrival (nil: lost).
    public func takePacketFeedback(subscriber: TransportID) -> [PacketFeedback] {
        guard let session = subscribers[subscriber] else { return [] }
        defer { session.feedback.removeAll(keepingCapacity: true) }
        return session.feedback
    }

    /// The subscriber's newest REMB, in bits per second, and when it came.
    public func remb(subscriber: TransportID) -> (bitsPerSecond: UInt64, at: MediaTime)? {
        subscribers[subscriber]?.remb
    }

    /// The downlink estimate of `subscriber`'s connection in bits per
    /// second (transport-cc feedback, else REMB); nil before either came.
    public func downlinkEstimate(subscriber: TransportID) -> UInt64? {
        guard let session = subscribers[subscriber], session.hasDownlinkFeedback else { return nil }
        return session.estimator.estimate
    }

    /// Reported received, reported lost, and reports about packets the
    /// send history does not hold (too old, or never sent).
    public func feedbackCounts(subscriber: TransportID) -> (received: UInt64, lost: UInt64, unknown: UInt64)? {
        subscribers[subscriber].map { ($0.feedbackReceived, $0.feedbackLost, $0.feedbackUnknown) }
    }

    /// One transport-cc feedback from `session`: each reported packet joined
    /// with its send record. Arrival times are the feedback's reference
    /// time (64 ms units) plus the running sum of its deltas (250 us
    /// units), on the receiver's clock.
    func absorb(_ feedback: TransportCCFeedbackView, session: SubscriberSession, now: MediaTime) {
        var arrival = Int64(feedback.referenceTime) &* 64_000_000
        // One feedback's packets at a time: the estimator takes them as they
        // come, so the buffer never holds more than one report.
        session.feedback.removeAll(keepingCapacity: true)
        defer {
            if !session.feedback.isEmpty {
                if !session.hasDownlinkFeedback { session.firstFeedback = now }
                session.hasDownlinkFeedback = true
                session.feedback.withUnsafeBufferPointer { session.estimator.onFeedback(buffer: $0, now: now) }
                // A probe result that continues the climb queues the next
                // cluster: send it now, not at the next timer.
                if session.probe == nil && session.estimator.hasProbeQueued && probeCarrier(session) != nil {
                    tickWanted = min(tickWanted ?? now, now)
                }
            }
        }
        for result in feedback.packets {
            var arrived: Int64?
            if let delta = result.delta {
                arrival &+= Int64(delta) &* 250_000
                arrived = arrival
            }
            let sequence = session.sendHistory.unwrap(result.sequenceNumber)
            guard let sent = session.sendHistory.lookup(sequence) else {
                session.feedbackUnknown &+= 1
                continue
            }
            if arrived == nil { session.feedbackLost &+= 1 } else { session.feedbackReceived &+= 1 }
            session.feedback.append(
                PacketFeedback(
                    sequence: sequence, size: sent.size, sendTime: sent.sendTime, arrival: arrived,
                    probeCluster: sent.probeCluster))
        }
    }
}
