import Packets
import SFU
import WebRTC

extension MediaPlane {
    /// The subscriber offer for `slots` (PROTOCOL.md 3.4 and 5), or nil for
    /// a connection with no m-line at all. Each sent track gets SSRCs of
    /// its own on this connection, kept while the track stays.
    public func subscriberOffer(
        participant: ParticipantHandle, room: RoomHandle, slots: [SubscriberMediaSlot]
    ) throws(MediaError) -> String? {
        let offer = try state.withLock { state throws(MediaError) -> SubscriberOffer? in
            var media = state.participants[participant] ?? ParticipantMedia(room: room, worker: workerIndex(for: room))
            let worker = placeSubscriber(&state, &media)
            var subscriber = media.subscriber
            let present = Set(slots.compactMap(\.track?.handle))
            subscriber.ssrcs = subscriber.ssrcs.filter { present.contains($0.key) }
            var used = Set(subscriber.ssrcs.values.flatMap { [$0.primary, $0.rtx].compactMap { $0 } })
            var generator = SystemRandomNumberGenerator()
            func fresh() -> SSRC {
                while true {
                    let candidate = SSRC(UInt32.random(in: 1...UInt32.max, using: &generator))
                    if used.insert(candidate).inserted { return candidate }
                }
            }
            var offerSlots: [SubscriberOfferSlot] = []
            var offeredTracks: [String: TrackHandle] = [:]
            for slot in slots {
                guard let track = slot.track else {
                    offerSlots.append(SubscriberOfferSlot(mid: slot.mid, kind: slot.kind == .audio ? .audio : .video))
                    continue
                }
                let ssrcs = subscriber.ssrcs[track.handle] ?? SubscriberSSRCs(primary: fresh(), rtx: slot.kind == .video ? fresh() : nil)
                subscriber.ssrcs[track.handle] = ssrcs
                offeredTracks[slot.mid] = track.handle
                offerSlots.append(
                    SubscriberOfferSlot(
                        mid: slot.mid, kind: slot.kind == .audio ? .audio : .video,
                        track: SubscriberOfferTrack(
                            participantSID: track.streamLabel, trackSID: track.trackLabel, ssrc: ssrcs.primary,
                            rtxSSRC: ssrcs.rtx)))
            }
            subscriber.sessionVersion += 1
            let offer = try SubscriberOffer(
                slots: offerSlots, transport: negotiationTransport(ice: subscriber.local, worker: worker),
                sessionID: Self.sessionID(participant, connection: 2), sessionVersion: subscriber.sessionVersion)
            subscriber.offer = offer
            subscriber.offeredTracks = offeredTracks
            media.subscriber = subscriber
            state.participants[participant] = media
            return offer
        }
        return offer?.text
    }

    /// The next subscriber offer carries new ICE credentials (`restartIce`).
    public func restartSubscriberICE(participant: ParticipantHandle) {
        state.withLock { state in
            state.participants[participant]?.subscriber.local = .random()
        }
    }

    /// Applies the client's answer to the offer in flight: creates the
    /// subscriber connection on the first answer, restarts ICE when the
    /// credentials changed, and starts or stops DownTracks to match the
    /// accepted m-lines. Throws 53403 for an answer that does not fit (the
    /// offer stays in flight), and 53401 when the server cannot create its
    /// side of the connection (the offer is used up; ask for a new one).
    public func applySubscriberAnswer(participant: ParticipantHandle, sdp: String) async throws(MediaError) {
        let plan = try state.withLock { state throws(MediaError) -> SubscriberPlan in
            guard var media = state.participants[participant], let offer = media.subscriber.offer else {
                throw .serverRemoteDescFailed("a subscribeAnswer without a subscribeOffer in flight")
            }
            var subscriber = media.subscriber
            let answer = try offer.parseAnswer(sdp, previous: subscriber.answer)
            let transport = subscriber.transport ?? TransportID(state.allocateTransport())
            var wanted: [TrackHandle: DownTrackPlan] = [:]
            for (mid, track) in subscriber.offeredTracks {
                guard let negotiated = answer.media(withMID: mid), negotiated.isAccepted, let codec = negotiated.codec,
                    let ssrcs = subscriber.ssrcs[track]
                else { continue }
                let rtx = codec.rtxPayloadType != nil ? ssrcs.rtx : nil
                var copies: [HeaderExtensionCopy] = []
                if let theirs = negotiated.headerExtensions.audioLevel,
                    let ours = state.publisherExtensions(of: track)?.audioLevel
                {
                    copies.append(HeaderExtensionCopy(publisherID: ours, subscriberID: theirs))
                }
                wanted[track] = DownTrackPlan(
                    track: track.trackID, subscriber: transport, ssrc: ssrcs.primary, rtxSSRC: rtx,
                    payloadType: codec.payloadType, rtxPayloadType: rtx == nil ? nil : codec.rtxPayloadType, mid: mid,
                    extensionCopies: copies)
            }
            let removed = subscriber.applied.filter { wanted[$0.key] != $0.value }.map(\.value)
            let added = wanted.filter { subscriber.applied[$0.key] != $0.value }.map(\.value)
            let restart = subscriber.transportLocal.map { $0 != offer.transport.ice } ?? false
            let extensions = answer.media.first(where: \.isAccepted)?.headerExtensions ?? NegotiatedHeaderExtensions()
            let plan = SubscriberPlan(
                worker: media.subscriberWorker ?? media.worker, room: media.room, transport: transport, isNew: subscriber.transport == nil,
                local: offer.transport.ice, restart: restart, answer: answer, extensions: extensions,
                removed: removed, added: added)
            subscriber.transport = transport
            subscriber.transportLocal = offer.transport.ice
            subscriber.answer = answer
            subscriber.offer = nil
            subscriber.applied = wanted
            media.subscriber = subscriber
            state.participants[participant] = media
            return plan
        }
        let certificate = self.certificate
        let configuration = transportConfiguration
        let logger = self.logger
        let failure = await workers[plan.worker].perform { rooms -> String? in
            let router = rooms.router(for: plan.room)
            if plan.isNew {
                do {
                    let transport = try PeerTransport(
                        certificate: certificate, localICE: plan.local, remote: plan.answer.remote,
                        dtlsRole: plan.answer.dtlsRole, iceMode: .lite, configuration: configuration, now: MediaClock.now())
                    rooms.add(
                        MediaConnection(id: plan.transport, participant: participant, room: plan.room, role: .subscriber, transport: transport))
                    try router.addSubscriber(
                        transport: plan.transport, midExtensionID: plan.extensions.mid,
                        transportCCExtensionID: plan.extensions.transportCC)
                    // An audio interruption that began before this
                    // connection existed (PROTOCOL.md 3.3); read now, on the
                    // worker, so a change racing this job is not lost.
                    if self.state.withLock({ $0.participants[participant]?.remoteAudioPaused ?? false }) {
                        try router.setAudioPaused(subscriber: plan.transport, paused: true)
                    }
                    if let profile = self.state.withLock({ $0.participants[participant]?.allocationProfile }) {
                        try router.setAllocationProfile(subscriber: plan.transport, profile)
                    }
                } catch {
                    logger.error("\(participant): subscriber connection not created: \(error)")
                    rooms.removeConnection(plan.transport)
                    return "subscriber connection not created: \(error)"
                }
            } else if plan.restart {
                rooms.restartICE(plan.transport, local: plan.local, remote: plan.answer.remote)
            }
            for downTrack in plan.removed {
                rooms.removeDownTrack(track: downTrack.track, subscriber: downTrack.subscriber, in: plan.room)
            }
            for downTrack in plan.added { rooms.addDownTrack(downTrack, in: plan.room) }
            rooms.touch(plan.room)
            return nil
        }
        if let failure {
            // Nothing exists on the worker: the next answer starts afresh.
            state.withLock { state in
                guard var subscriber = state.participants[participant]?.subscriber, subscriber.transport == plan.transport
                else { return }
                subscriber.transport = nil
                subscriber.transportLocal = nil
                subscriber.answer = nil
                subscriber.applied = [:]
                state.participants[participant]?.subscriber = subscriber
            }
            throw .serverLocalDescFailed(failure)
        }
    }
}

extension MediaPlane.State {
    /// The header-extension IDs the publisher of `track` negotiated on the
    /// track's m-line.
    func publisherExtensions(of track: TrackHandle) -> NegotiatedHeaderExtensions? {
        for media in participants.values {
            guard let publisher = media.publisher,
                let mid = publisher.tracks.first(where: { $0.value.handle == track })?.key
            else { continue }
            return publisher.answer.media(withMID: mid)?.headerExtensions
        }
        return nil
    }
}

struct SubscriberPlan: Sendable {
    var worker: Int
    var room: RoomHandle
    var transport: TransportID
    var isNew: Bool
    var local: ICECredentials
    var restart: Bool
    var answer: SubscriberAnswer
    var extensions: NegotiatedHeaderExtensions
    var removed: [DownTrackPlan]
    var added: [DownTrackPlan]
}
