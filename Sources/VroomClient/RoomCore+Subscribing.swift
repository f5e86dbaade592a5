extension RoomCore {
    /// A `subscribeOffer`: answer it, then bring the publications'
    /// `isTrackSubscribed` and the receivers in line with its track list
    /// (which always lists every track on the connection, PROTOCOL.md 3.4).
    func answerSubscribeOffer(sdp: String, tracks: [ServerSignal.SubscribedTrack]) {
        guard let channel else { return }
        let answer: String
        do {
            let engine = try ensureEngine()
            answer = try engine.answerSubscribeOffer(
                sdp,
                tracks: tracks.map {
                    RemoteMediaTrack(mid: $0.mid, trackSid: $0.trackSid, participantSid: $0.participantSid, kind: $0.kind)
                })
        } catch {
            // Not answered: the server sends the offer again in 10 s.
            logger.error("cannot answer the subscriber offer: \(error)")
            return
        }
        channel.send(.subscribeAnswer(sdp: answer))

        let current = Dictionary(tracks.map { ($0.trackSid, $0) }, uniquingKeysWith: { first, _ in first })
        for (sid, track) in subscribedTracks where current[sid] == nil {
            remoteVideo[sid] = nil
            remoteAudio[sid] = nil
            if let (participant, publication) = publication(track.participantSid, sid) {
                publication.state.withLock { $0.subscribed = false }
                // A switch-off ends with the subscription (PROTOCOL.md 7: it applies to subscribed tracks).
                _ = publication.videoTrack?.setSwitchedOff(false, reason: nil)
                emit(.trackUnsubscribed(participant, publication))
            }
        }
        for (sid, track) in current where subscribedTracks[sid] == nil {
            switch track.kind {
            case .video: remoteVideo[sid] = RemoteVideoReceiver(decodes: options.decodesRemoteVideo)
            case .audio: remoteAudio[sid] = RemoteAudioReceiver(decodes: options.decodesRemoteAudio)
            }
            if let (participant, publication) = publication(track.participantSid, sid) {
                publication.state.withLock { $0.subscribed = true }
                emit(.trackSubscribed(participant, publication))
            }
        }
        subscribedTracks = current
    }
}
