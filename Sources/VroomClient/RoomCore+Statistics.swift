extension RoomCore {
    /// The statistics, collected on the event loop; the audio frequencies
    /// that need a fresh analysis are run after, off it (see
    /// `RemoteAudioReceiver.frequencyReading`), and kept for the next call.
    func statistics() async -> RoomStatistics {
        guard let (collected, pending) = try? await eventLoop.submit({ self.collectStatistics() }).get() else {
            return RoomStatistics(localTracks: [], remoteTracks: [])
        }
        var statistics = collected
        for (index, analysis) in pending {
            let frequency = analysis.run()
            statistics.remoteTracks[index].audioFrequency = frequency
            let trackSid = statistics.remoteTracks[index].trackSid
            eventLoop.execute { self.remoteAudio[trackSid]?.store(frequency, of: analysis) }
        }
        return statistics
    }

    /// On the event loop: the statistics, and by index into `remoteTracks`
    /// the frequency analyses still to run.
    func collectStatistics() -> (RoomStatistics, [(Int, FrequencyAnalysis)]) {
        var pending: [(Int, FrequencyAnalysis)] = []
        let media = engine?.statistics()
        let local = shared.withLock { $0.localParticipant }
        var localTracks: [LocalTrackStatistics] = []
        for track in media?.localTracks ?? [] {
            let frames = videoSenders[track.name]?.framesSent ?? track.framesSent
            localTracks.append(
                LocalTrackStatistics(
                    name: track.name, kind: track.kind,
                    trackSid: local?.publication(named: track.name)?.trackSid, packetsSent: track.packetsSent,
                    bytesSent: track.bytesSent, framesSent: frames, retransmissionsSent: track.retransmissionsSent,
                    keyframeRequestsReceived: track.keyframeRequestsReceived))
        }
        var remoteTracks: [RemoteTrackStatistics] = []
        for track in media?.remoteTracks ?? [] {
            let video = remoteVideo[track.trackSid]
            let audio = remoteAudio[track.trackSid]
            var frequency: Double?
            switch audio?.frequencyReading() {
            case .analyzed(let known)?: frequency = known
            case .pending(let analysis)?: pending.append((remoteTracks.count, analysis))
            case nil: break
            }
            remoteTracks.append(
                RemoteTrackStatistics(
                    trackSid: track.trackSid, participantSid: subscribedTracks[track.trackSid]?.participantSid ?? "",
                    kind: track.kind, packetsReceived: track.packetsReceived,
                    bytesReceived: track.bytesReceived, packetsLost: track.packetsLost,
                    jitterMilliseconds: track.jitter, framesReceived: track.framesReceived,
                    framesDecoded: video?.framesDecoded ?? audio?.framesDecoded ?? 0,
                    frameNumbersRead: video?.frameNumbers.count ?? 0, firstFrameNumber: video?.firstFrameNumber,
                    lastFrameNumber: video?.lastFrameNumber, latencyMilliseconds: video?.latencies ?? [],
                    decodedSizeChanges: video?.sizeChanges ?? [],
                    audioFrequency: frequency, nacksSent: track.nacksSent,
                    keyframeRequestsSent: track.keyframeRequestsSent, freezeCount: video?.freezes.freezes ?? 0,
                    totalFreezesDurationMilliseconds: video.map { Double($0.freezes.totalFreezeDuration.components.attoseconds) / 1e15
                        + Double($0.freezes.totalFreezeDuration.components.seconds) * 1000 } ?? 0,
                    frameNumberRanges: video?.frameNumberRanges ?? []))
        }
        let statistics = RoomStatistics(
            localTracks: localTracks, remoteTracks: remoteTracks, roundTripTimeMilliseconds: media?.roundTripTime.map { Double($0.components.seconds) * 1000 + Double($0.components.attoseconds) / 1e15 },
            transportFeedbackSent: media?.transportFeedbackSent ?? 0)
        return (statistics, pending)
    }
}
