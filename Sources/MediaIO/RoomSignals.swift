import Packets
import SFU
import WebRTC

/// A room's quality signals on its media worker: a network quality monitor
/// per participant (sampled once a second) and the dominant speaker
/// detector (fed every 100 ms). The decisions are the SFU's sans-I/O types;
/// this only samples the router on the worker's clock and turns their
/// output into `MediaEvent`s.
final class RoomSignals {
    var monitors: [ParticipantHandle: NetworkQualityMonitor] = [:]
    var speakers: DominantSpeakerDetector<ParticipantHandle>
    var nextQualitySample: MediaTime
    var nextSpeakerUpdate: MediaTime

    init(configuration: DominantSpeakerConfiguration, now: MediaTime, qualityInterval: UInt64) {
        speakers = DominantSpeakerDetector(configuration: configuration)
        nextQualitySample = now.adding(nanoseconds: qualityInterval)
        nextSpeakerUpdate = now.adding(nanoseconds: configuration.updateInterval)
    }
}

extension MediaWorkerRooms {
    /// Runs what is due of the room's signals and returns when they are due
    /// next. Each sample comes at least `minimumInterval` after the last
    /// (the next is set from when this one ran), so no participant's
    /// `networkQuality` goes out twice within a second.
    func runSignals(room: RoomHandle, router: Router, now: MediaTime) -> MediaTime {
        let qualityInterval = qualityConfiguration.minimumInterval
        let state = signals[room] ?? {
            let created = RoomSignals(configuration: speakerConfiguration, now: now, qualityInterval: qualityInterval)
            signals[room] = created
            return created
        }()

        if now >= state.nextSpeakerUpdate {
            state.nextSpeakerUpdate = now.adding(nanoseconds: speakerConfiguration.updateInterval)
            var activity: [ParticipantHandle: AudioActivity] = [:]
            router.takeAudioActivity { transport, interval in
                if let participant = table.byID[transport]?.participant { activity[participant] = interval }
            }
            if let change = state.speakers.update(activity, now: now) {
                events(.dominantSpeaker(room: room, participant: change.speaker))
                // Its video gets the subscribers' dominantSpeakerPriority.
                let publisher = change.speaker.flatMap { speaker in
                    table.byID.values.first { $0.participant == speaker && $0.role == .publisher }?.id
                }
                router.setDominantSpeaker(publisher: publisher)
                for target in relay.targets[room] ?? [] {
                    peers.enqueue(on: target.worker) { rooms in rooms.routers[room]?.setDominantSpeaker(publisher: publisher) }
                }
            }
        }

        if now >= state.nextQualitySample {
            state.nextQualitySample = now.adding(nanoseconds: qualityInterval)
            var links: [ParticipantHandle: (publisher: TransportID?, subscriber: TransportID?)] = [:]
            for connection in table.byID.values where connection.room == room {
                var link = links[connection.participant] ?? (nil, nil)
                switch connection.role {
                case .publisher: link.publisher = connection.id
                case .subscriber: link.subscriber = connection.id
                }
                links[connection.participant] = link
            }
            // Participants whose subscriber connection is on another worker.
            let remote = takeRemoteLinks(room: room, now: now)
            for participant in remote.keys where links[participant] == nil { links[participant] = (nil, nil) }
            for participant in state.monitors.keys where links[participant] == nil {
                state.monitors[participant] = nil
            }
            for (participant, link) in links {
                var monitor = state.monitors[participant]
                    ?? NetworkQualityMonitor(configuration: qualityConfiguration, now: now)
                var sample = router.takeLinkSample(publisher: link.publisher, subscriber: link.subscriber, now: now)
                if let far = remote[participant] { sample.addDownlink(of: far) }
                monitor.record(sample, now: now)
                if let report = monitor.poll(now: now) {
                    events(.networkQuality(
                        room: room, participant: participant, level: report.level,
                        warnings: report.warnings))
                }
                state.monitors[participant] = monitor
            }
        }
        return min(state.nextQualitySample, state.nextSpeakerUpdate)
    }
}
