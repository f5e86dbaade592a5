import Foundation

extension RoomService {
    /// `publish` (PROTOCOL.md section 3.2): `tracks` is the FULL set of the
    /// participant's publications after this offer. A track whose name (and
    /// kind) stays keeps its SID; a missing one is unpublished; a new name,
    /// or a name published again after being unpublished, gets a new SID.
    ///
    /// Checks before anything changes, per entry in order: kind (53300),
    /// empty or duplicated `mid` (53300), name empty or with control
    /// characters (53301) or over 128 scalars (53302), name already in this
    /// publish (53304); then the count against `maxTracksPerParticipant`
    /// (53203). Any error leaves everything as it was.
    ///
    /// Events: `trackUnpublished` for removed tracks, `trackPublished` for
    /// new ones, `trackEnabled`/`trackDisabled` when a kept track's effective
    /// state changes, to every other connected participant; then
    /// `subscriptionsChanged` where a subscribed set changed.
    public mutating func publish(participant sid: ParticipantSID, tracks: [TrackRequest], now: Date) throws(RoomError) -> RoomOutcome<[PublishedTrackAssignment]> {
        guard var participant = participants[sid], participant.isCurrent else { throw .participantNotFound }
        var mids = Set<String>()
        var names = Set<String>()
        var kinds: [TrackKind] = []
        for track in tracks {
            guard let kind = TrackKind(rawValue: track.kind) else { throw .trackInvalid }
            guard !track.mid.isEmpty, mids.insert(track.mid).inserted else { throw .trackInvalid }
            try NameValidation.validateTrackName(track.name)
            guard names.insert(track.name).inserted else { throw .trackNameIsDuplicated }
            kinds.append(kind)
        }
        guard tracks.count <= configuration.maxTracksPerParticipant else { throw .participantMaxTracksExceeded }

        let roomSID = participant.roomSID
        let old = participant.publications
        var kept: [TrackSID: Publication] = [:]
        var next: [Publication] = []
        var assignments: [PublishedTrackAssignment] = []
        var added: [Publication] = []
        var enabledChanges: [(Publication, Bool)] = []
        for (track, kind) in zip(tracks, kinds) {
            if var existing = old.first(where: { $0.name == track.name && $0.kind == kind }) {
                let wasEnabled = participant.isEffectivelyEnabled(existing)
                existing.mid = track.mid
                if let enabled = track.enabled, enabled != existing.publisherEnabled {
                    existing.publisherEnabled = enabled
                    existing.dateUpdated = now
                }
                let isEnabled = participant.isEffectivelyEnabled(existing)
                if isEnabled != wasEnabled { enabledChanges.append((existing, isEnabled)) }
                kept[existing.sid] = existing
                next.append(existing)
                assignments.append(PublishedTrackAssignment(
                    mid: track.mid, sid: existing.sid, name: existing.name, kind: kind, enabled: isEnabled, isNew: false))
            } else {
                let publication = Publication(
                    sid: TrackSID.random(using: &generator), mid: track.mid, name: track.name, kind: kind,
                    publisherEnabled: track.enabled ?? true, dateCreated: now, dateUpdated: now)
                added.append(publication)
                next.append(publication)
                assignments.append(PublishedTrackAssignment(
                    mid: track.mid, sid: publication.sid, name: publication.name, kind: kind,
                    enabled: participant.isEffectivelyEnabled(publication), isNew: true))
            }
        }
        let removed = old.filter { kept[$0.sid] == nil }
        participant.publications = next
        participant.dateUpdated = now
        participants[sid] = participant

        // Its date_updated moved: the history (other nodes' REST) follows.
        var events: [RoomEvent] = [.participantRecord(participant.record)]
        let others = connectedParticipants(in: roomSID, except: sid)
        for publication in removed {
            for other in others { events.append(.notice(to: other, .trackUnpublished(participant: sid, track: publication.sid))) }
            events.append(.publishedTrackRemoved(room: roomSID, participant: sid, track: publication.sid))
            appendCallback(.trackRemoved, room: roomSID, participant: sid, track: publication, at: now, events: &events)
        }
        for publication in added {
            let info = participant.trackInfo(publication)
            for other in others { events.append(.notice(to: other, .trackPublished(participant: sid, track: info))) }
            events.append(.publishedTrackRecord(participant.publishedRecord(publication)))
            appendCallback(.trackAdded, room: roomSID, participant: sid, track: publication, at: now, events: &events)
        }
        for (publication, enabled) in enabledChanges {
            appendEnabledChange(publisher: sid, publication: publication, enabled: enabled, reason: nil, at: now, events: &events)
        }
        refreshSubscriptions(in: roomSID, events: &events)
        return RoomOutcome(value: assignments, events: events)
    }

    /// `unpublish {trackSid}`: the publication ends (`trackUnpublished` to
    /// others, then `subscriptionsChanged`). Unknown track: `trackNotFound`.
    public mutating func unpublish(participant sid: ParticipantSID, track trackSID: TrackSID, now: Date) throws(RoomError) -> [RoomEvent] {
        guard var participant = participants[sid], participant.isCurrent else { throw .participantNotFound }
        guard let index = participant.publications.firstIndex(where: { $0.sid == trackSID }) else { throw .trackNotFound }
        let publication = participant.publications.remove(at: index)
        participant.dateUpdated = now
        participants[sid] = participant
        var events: [RoomEvent] = [.participantRecord(participant.record)]
        for other in connectedParticipants(in: participant.roomSID, except: sid) {
            events.append(.notice(to: other, .trackUnpublished(participant: sid, track: trackSID)))
        }
        events.append(.publishedTrackRemoved(room: participant.roomSID, participant: sid, track: trackSID))
        appendCallback(.trackRemoved, room: participant.roomSID, participant: sid, track: publication, at: now, events: &events)
        refreshSubscriptions(in: participant.roomSID, events: &events)
        return events
    }

    /// `setTrackEnabled` (PROTOCOL.md section 3.3): the publisher's own flag.
    /// Events (no reason) only when the effective state changes: enabling a
    /// track during an interruption of its kind says nothing until the
    /// interruption ends. Subscriptions do not change.
    public mutating func setTrackEnabled(participant sid: ParticipantSID, track trackSID: TrackSID, enabled: Bool, now: Date) throws(RoomError) -> [RoomEvent] {
        guard var participant = participants[sid], participant.isCurrent else { throw .participantNotFound }
        guard let index = participant.publications.firstIndex(where: { $0.sid == trackSID }) else { throw .trackNotFound }
        let wasEnabled = participant.isEffectivelyEnabled(participant.publications[index])
        guard participant.publications[index].publisherEnabled != enabled else { return [] }
        participant.publications[index].publisherEnabled = enabled
        participant.publications[index].dateUpdated = now
        participants[sid] = participant
        let publication = participant.publications[index]
        var events: [RoomEvent] = []
        let isEnabled = participant.isEffectivelyEnabled(publication)
        if isEnabled != wasEnabled {
            appendEnabledChange(publisher: sid, publication: publication, enabled: isEnabled, reason: nil, at: now, events: &events)
        }
        return events
    }

    /// `interruption` (PROTOCOL.md section 3.3). `camera` affects the
    /// participant's video tracks, `audio` its audio tracks and also pauses
    /// the remote audio forwarded to it (`remoteAudioPaused`). Tracks the
    /// publisher disabled stay disabled when the interruption ends. Events
    /// carry the reason `interrupted`; a repeated `began` (or an `ended`
    /// without one) changes nothing. `reason` (the client's, e.g.
    /// `phoneCall`) is accepted for logging and not stored.
    public mutating func interruption(
        participant sid: ParticipantSID, kind: InterruptionKind, state: InterruptionState,
        reason: String? = nil, now: Date
    ) throws(RoomError) -> [RoomEvent] {
        guard var participant = participants[sid], participant.isCurrent else { throw .participantNotFound }
        let interrupted = state == .began
        guard participant.isInterrupted(kind.trackKind) != interrupted else { return [] }
        let before = participant.publications.map(participant.isEffectivelyEnabled)
        switch kind {
        case .camera: participant.cameraInterrupted = interrupted
        case .audio: participant.audioInterrupted = interrupted
        }
        participant.dateUpdated = now
        participants[sid] = participant
        var events: [RoomEvent] = [.participantRecord(participant.record)]
        for (publication, wasEnabled) in zip(participant.publications, before) {
            let isEnabled = participant.isEffectivelyEnabled(publication)
            if isEnabled != wasEnabled {
                appendEnabledChange(publisher: sid, publication: publication, enabled: isEnabled, reason: .interrupted, at: now, events: &events)
            }
        }
        if kind == .audio {
            events.append(.remoteAudioPaused(room: participant.roomSID, participant: sid, paused: interrupted))
        }
        return events
    }

    /// Notices to the other connected participants, the history record, the
    /// webhook and the media command for one change of a publication's
    /// effective state. The caller stored the participant first.
    mutating func appendEnabledChange(
        publisher sid: ParticipantSID, publication: Publication, enabled: Bool,
        reason: TrackStateReason?, at date: Date, events: inout [RoomEvent]
    ) {
        guard let participant = participants[sid] else { return }
        let roomSID = participant.roomSID
        for other in connectedParticipants(in: roomSID, except: sid) {
            let notice: ParticipantNotice = enabled
                ? .trackEnabled(participant: sid, track: publication.sid, reason: reason)
                : .trackDisabled(participant: sid, track: publication.sid, reason: reason)
            events.append(.notice(to: other, notice))
        }
        events.append(.publishedTrackRecord(participant.publishedRecord(publication)))
        appendCallback(enabled ? .trackEnabled : .trackDisabled, room: roomSID, participant: sid, track: publication, at: date, events: &events)
        events.append(.trackForwarding(room: roomSID, publisher: sid, track: publication.sid, forwarded: enabled))
    }
}
