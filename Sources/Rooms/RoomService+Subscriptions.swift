import Foundation

extension RoomService {
    /// `updateSubscriptions` (PROTOCOL.md section 3.4): replaces the rules;
    /// `subscriptionsChanged` to the participant when its set changed.
    public mutating func updateSubscriptions(participant sid: ParticipantSID, rules: [SubscribeRule], now: Date) throws(RoomError) -> [RoomEvent] {
        guard var participant = participants[sid], participant.isCurrent else { throw .participantNotFound }
        participant.rules = rules
        participant.rulesDateUpdated = now
        participant.dateUpdated = now
        participants[sid] = participant
        var events: [RoomEvent] = [.participantRecord(participant.record), .session(participant.session)]
        refreshSubscriptions(in: participant.roomSID, events: &events)
        return events
    }

    /// What `sid` receives now, for `subscribeOffer` and REST
    /// `SubscribedTracks`: room participants in join order, then
    /// publication order. Empty for an unknown or ended participant.
    public func subscribedTracks(of sid: ParticipantSID) -> [SubscribedTrackRecord] {
        guard let subscriber = participants[sid], subscriber.isCurrent else { return [] }
        var byTrack: [TrackSID: SubscribedTrackRecord] = [:]
        for publisherSID in rooms[subscriber.roomSID]?.current ?? [] where publisherSID != sid {
            guard let publisher = participants[publisherSID] else { continue }
            for publication in publisher.publications {
                byTrack[publication.sid] = SubscribedTrackRecord(
                    sid: publication.sid, participantSID: sid, publisherSID: publisherSID,
                    publisherIdentity: publisher.identity, roomSID: subscriber.roomSID,
                    name: publication.name, kind: publication.kind,
                    enabled: publisher.isEffectivelyEnabled(publication),
                    dateCreated: publication.dateCreated, dateUpdated: publication.dateUpdated)
            }
        }
        return subscriber.subscribed.compactMap { byTrack[$0] }
    }

    /// The participant's current subscribe rules.
    public func subscribeRules(of sid: ParticipantSID) -> [SubscribeRule]? {
        participants[sid]?.rules
    }
}
