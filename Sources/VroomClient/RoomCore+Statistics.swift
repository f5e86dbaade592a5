extension RoomCore {
    func collectStatistics() -> RoomStatistics {
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
                    audioFrequency: audio?.frequency(), nacksSent: track.nacksSent,
                    keyframeRequestsSent: track.keyframeRequestsSent, freezeCount: video?.freezes.freezes ?? 0,
                    totalFreezesDurationMilliseconds: video.map { Double($0.freezes.totalFreezeDuration.components.attoseconds) / 1e15
                        + Double($0.freezes.totalFreezeDuration.components.seconds) * 1000 } ?? 0))
        }
        return RoomStatistics(
            localTracks: localTracks, remoteTracks: remoteTracks, roundTripTimeMilliseconds: media?.roundTripTime.map { Double($0.components.seconds) * 1000 + Double($0.components.attoseconds) / 1e15 },
            transportFeedbackSent: media?.transportFeedbackSent ?? 0)
    }
}
