import Packets

extension Router {
    /// What the router measured of one participant's links since the last
    /// call, for `NetworkQualityMonitor` (once a second): upstream from its
    /// publisher connection's tracks as received here, downstream from its
    /// subscriber connection's receiver reports, and the newest RTT (kept
    /// for `roundTripTimeHold`: reports come every 0.5-1.5 s). Either
    /// connection may be nil (not negotiated yet).
    public func takeLinkSample(publisher: TransportID?, subscriber: TransportID?, now: MediaTime) -> LinkSample {
        var sample = LinkSample()
        if let publisher, let session = publishers[publisher] {
            if let heard = session.lastHeard, now.nanoseconds(since: heard) < reportInterval { sample.heard = true }
            for receiver in session.receivers {
                let loss = receiver.takeLinkLoss()
                let jitter = receiver.reception.baseSequence == nil
                    ? nil : Double(receiver.reception.jitter) / Double(receiver.clockRate)
                switch receiver.kind {
                case .audio:
                    sample.upstream.audio += loss
                    if let jitter { sample.upstream.audioJitter = max(sample.upstream.audioJitter ?? 0, jitter) }
                case .video:
                    sample.upstream.video += loss
                    if let jitter { sample.upstream.videoJitter = max(sample.upstream.videoJitter ?? 0, jitter) }
                }
            }
        }
        if let subscriber, let session = subscribers[subscriber] {
            if let heard = session.lastHeard, now.nanoseconds(since: heard) < reportInterval { sample.heard = true }
            sample.downstream = LinkSample.Direction(
                audio: session.linkAudio, video: session.linkVideo, audioJitter: session.linkAudioJitter,
                videoJitter: session.linkVideoJitter)
            session.linkAudio = LinkSample.LossCount()
            session.linkVideo = LinkSample.LossCount()
            session.linkAudioJitter = nil
            session.linkVideoJitter = nil
            if let rtt = session.roundTripTime, now.nanoseconds(since: rtt.at) <= roundTripTimeHold {
                sample.roundTripTime = rtt.seconds
            }
        }
        return sample
    }

    /// Calls `body` with each publisher connection's audio activity since
    /// the last call (its audio tracks' levels summed), for the dominant
    /// speaker; publishers without audio levels are left out.
    public func takeAudioActivity(_ body: (TransportID, AudioActivity) -> Void) {
        for session in publishers.values where session.audioLevelExtensionID != nil {
            var total = AudioActivity()
            var hasAudio = false
            for receiver in session.receivers where receiver.kind == .audio {
                hasAudio = true
                total.packets &+= receiver.audioActivity.packets
                total.levelSum &+= receiver.audioActivity.levelSum
                receiver.audioActivity = AudioActivity()
            }
            if hasAudio { body(session.transport, total) }
        }
    }

    /// How long an RTT measurement stands in for a new one: 5 s, five SR
    /// intervals (a subscriber that receives only paused audio sends no
    /// reports).
    var roundTripTimeHold: UInt64 { 5 * reportInterval }
}
