import Foundation
import MediaIO
import Rooms

/// This node's rooms and their one owner (DESIGN.md, "Layers"): the
/// `RoomHost` that runs the Rooms rules, the `RoomMedia` that commands the
/// media workers, and the `RoomPlacement` that says which rooms live here.
/// Signaling and AdminAPI ask it; they never reach the media plane itself.
public final class Node: Sendable {
    public let rooms: RoomHost
    public let media: RoomMedia
    public let placement: any RoomPlacement

    /// - Parameters:
    ///   - eventSink: receives, in order, every room event that is neither a
    ///     notice to a participant nor for the media plane alone (history,
    ///     status callbacks, messages). Called on the host actor: it must
    ///     only enqueue.
    public init(
        configuration: RoomServiceConfiguration = RoomServiceConfiguration(), media: RoomMedia,
        placement: any RoomPlacement = SingleNodePlacement(), clock: @escaping @Sendable () -> Date = { Date() },
        eventSink: @escaping @Sendable ([RoomEvent]) -> Void = { _ in }
    ) {
        self.media = media
        self.placement = placement
        rooms = RoomHost(configuration: configuration, clock: clock) { events in
            media.handle(events)
            eventSink(events)
        }
    }

    // MARK: - Publications

    /// A `publish` (PROTOCOL.md 3.2): the offer is checked and answered
    /// before the room changes (an offer the server cannot apply, 53403, or
    /// a track without Opus/VP8, 53404, changes nothing), then the room
    /// assigns SIDs, then the media plane routes the tracks (53401 when it
    /// cannot: the new tracks are taken back). Returns the answer's SDP and
    /// the tracks.
    public func publish(
        participant: ParticipantSID, room: RoomSID, offer: String, tracks: [TrackRequest]
    ) async throws(NodeError) -> (sdp: String, tracks: [PublishedTrackAssignment]) {
        let pending: PendingPublish
        do throws(MediaError) {
            pending = try media.answerPublish(
                participant: participant, room: room, offer: offer, trackMIDs: tracks.map(\.mid), trackKinds: tracks.map(\.kind))
        } catch {
            throw NodeError(error)
        }
        let assignments: [PublishedTrackAssignment]
        do throws(RoomError) {
            assignments = try await rooms.perform { (service: inout RoomService, now) throws(RoomError) in
                try service.publish(participant: participant, tracks: tracks, now: now)
            }
        } catch {
            throw NodeError(error)
        }
        do throws(MediaError) {
            try await media.applyPublish(participant: participant, room: room, pending, tracks: assignments, requests: tracks)
        } catch {
            // 53401: the server could not set up its side. The client gets
            // no answer, so none of its new tracks can flow: the room takes
            // them back (the others see them unpublished).
            for track in assignments where track.isNew {
                try? await unpublish(participant: participant, track: track.sid)
            }
            throw NodeError(error)
        }
        return (pending.sdp, assignments)
    }

    /// An `unpublish`: the room forgets the publication, the media plane its receiver.
    public func unpublish(participant: ParticipantSID, track: TrackSID) async throws(RoomError) {
        try await rooms.perform { (service: inout RoomService, now) throws(RoomError) in
            try service.unpublish(participant: participant, track: track, now: now)
        }
        await media.unpublish(participant: participant, track: track)
    }

    // MARK: - Subscriber connection

    /// The subscriber offer for `slots` (PROTOCOL.md 3.4), or nil for a
    /// connection with no m-line at all; 53401 when the server cannot make it.
    public func subscriberOffer(
        participant: ParticipantSID, room: RoomSID, slots: [SubscriberSlotRequest]
    ) throws(NodeError) -> String? {
        do throws(MediaError) {
            return try media.subscriberOffer(participant: participant, room: room, slots: slots)
        } catch {
            throw NodeError(error)
        }
    }

    /// Applies a `subscribeAnswer`; 53403 for one that cannot be applied.
    public func applySubscriberAnswer(participant: ParticipantSID, sdp: String) async throws(NodeError) {
        do throws(MediaError) {
            try await media.applySubscriberAnswer(participant: participant, sdp: sdp)
        } catch {
            throw NodeError(error)
        }
    }

    // MARK: - Moving rooms

    /// Hands `room` over to another node (a drain). In this order, so the
    /// new node reads all of it: the room is forgotten here (nothing can
    /// change it any more), then `place` (which catches the database up and
    /// moves the placement) names the signaling URL its participants
    /// resume at; they are told (`reconnect`), and their media here ends.
    /// Nil `place`: they are told nothing and leave with this node. Returns
    /// the participants moved and where to.
    public func moveRoom(_ room: RoomSID, place: @Sendable () async -> String?) async -> (moved: Int, to: String?) {
        let participants = await rooms.release(room: room)
        let url = await place()
        for (participant, connection) in participants {
            if let url { connection?.roomMoved(to: url) } else { connection?.connectionReplaced() }
            media.remove(participant: participant)
        }
        return (url == nil ? 0 : participants.count, url)
    }

    // MARK: - Media events

    /// Routes an event of the media plane, in SIDs, to the sessions it
    /// concerns (`RoomHost.handle`). Returns a line for the server's log
    /// when the event is worth one (a failure).
    @discardableResult
    public func handle(_ event: MediaEvent) async -> String? {
        guard let event = media.translate(event) else { return nil }
        return await rooms.handle(event)
    }
}
