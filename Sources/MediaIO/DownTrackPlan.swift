import Packets
import SFU

/// One track to send to one subscriber connection, as negotiated on it.
struct DownTrackPlan: Sendable, Hashable {
    var track: TrackID
    var subscriber: TransportID
    var ssrc: SSRC
    var rtxSSRC: SSRC?
    var payloadType: UInt8
    var rtxPayloadType: UInt8?
    var mid: String
    var extensionCopies: [HeaderExtensionCopy]
}

extension MediaWorkerRooms {
    /// Starts forwarding per `plan`, or keeps the plan until the track's
    /// receiver exists (a subscriber's answer can arrive before the
    /// publisher's offer was applied).
    func addDownTrack(_ plan: DownTrackPlan, in room: RoomHandle) {
        let router = router(for: room)
        guard router.receiverSSRCs(track: plan.track) != nil else {
            logger.debug("down track \(plan.track) -> \(plan.subscriber) waits for its receiver")
            pendingDownTracks[plan.track, default: []].append((room, plan))
            return
        }
        logger.debug("down track \(plan.track) -> \(plan.subscriber): ssrc \(plan.ssrc) rtx \(plan.rtxSSRC.map(String.init(describing:)) ?? "-") pt \(plan.payloadType)/\(plan.rtxPayloadType.map(String.init) ?? "-") mid \(plan.mid) copies \(plan.extensionCopies)")
        do {
            try router.addDownTrack(
                track: plan.track, subscriber: plan.subscriber, ssrc: plan.ssrc, rtxSSRC: plan.rtxSSRC,
                payloadType: plan.payloadType, rtxPayloadType: plan.rtxPayloadType, mid: plan.mid,
                extensionCopies: plan.extensionCopies)
            if let subscriber = connection(plan.subscriber) {
                applyPreferences(of: subscriber.participant, to: plan, router: router)
            }
            touch(room)
        } catch {
            logger.error("down track \(plan.track) -> \(plan.subscriber) not added: \(error)")
        }
    }

    func removeDownTrack(track: TrackID, subscriber: TransportID, in room: RoomHandle) {
        routers[room]?.removeDownTrack(track: track, subscriber: subscriber)
        pendingDownTracks[track]?.removeAll { $0.1.subscriber == subscriber }
    }

    func attachPendingDownTracks(of track: TrackID, in room: RoomHandle) {
        guard let waiting = pendingDownTracks.removeValue(forKey: track) else { return }
        for (pendingRoom, plan) in waiting where pendingRoom == room { addDownTrack(plan, in: room) }
    }

    func forgetPendingDownTracks(of track: TrackID) {
        pendingDownTracks[track] = nil
    }

    func forgetPendingDownTracks(toSubscriber subscriber: TransportID) {
        for track in Array(pendingDownTracks.keys) {
            pendingDownTracks[track]?.removeAll { $0.1.subscriber == subscriber }
            if pendingDownTracks[track]?.isEmpty == true { pendingDownTracks[track] = nil }
        }
    }
}
