import Packets
import SFU

/// A room's publisher connections and tracks as its home worker's router
/// has them: what another worker that holds some of the room's subscribers
/// builds its own router's relayed publishers and receivers from
/// (`MediaWorkerRooms.syncRelayed`). Kept by `MediaPlane`, sent whole on
/// every change, so a worker applies the newest and nothing else.
struct RoomRelayLayout: Sendable, Equatable {
    var publishers: [TransportID: RelayedPublisher] = [:]
    var receivers: [TrackID: RelayedReceiver] = [:]

    /// Forgets a publisher connection and every track of it.
    mutating func removePublisher(_ transport: TransportID) {
        publishers[transport] = nil
        receivers = receivers.filter { $0.value.publisher != transport }
    }
}

/// A publisher connection's negotiated header extensions, as a relaying
/// router reads its packets with them.
struct RelayedPublisher: Sendable, Hashable {
    var midExtensionID: UInt8?
    var audioLevelExtensionID: UInt8?
    var ridExtensionID: UInt8?
    var repairedRIDExtensionID: UInt8?
}

/// A published track and its publisher connection.
struct RelayedReceiver: Sendable, Hashable {
    var publisher: TransportID
    var plan: ReceiverPlan

    /// The same receiver but for what a running one updates in place (its
    /// mid, SSRCs, enabled state and priority).
    func isSameReceiver(as other: RelayedReceiver) -> Bool {
        publisher == other.publisher && plan.kind == other.plan.kind && plan.payloadType == other.plan.payloadType
            && plan.rtxPayloadType == other.plan.rtxPayloadType && plan.clockRate == other.plan.clockRate
            && plan.layers == other.plan.layers
    }
}

extension LinkSample {
    /// Adds what another worker measured of the participant's subscriber
    /// connection (its downstream, RTT and whether it was heard from).
    mutating func addDownlink(of other: LinkSample) {
        downstream.audio += other.downstream.audio
        downstream.video += other.downstream.video
        if let jitter = other.downstream.audioJitter { downstream.audioJitter = max(downstream.audioJitter ?? 0, jitter) }
        if let jitter = other.downstream.videoJitter { downstream.videoJitter = max(downstream.videoJitter ?? 0, jitter) }
        if let rtt = other.roundTripTime { roundTripTime = rtt }
        heard = heard || other.heard
    }
}
