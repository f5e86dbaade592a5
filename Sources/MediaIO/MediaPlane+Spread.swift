import Packets
import SFU

/// Where a room's subscribers are, and what its publishers publish: the
/// control plane's side of a room spread over several workers (issue 16).
/// The room's home worker (`MediaPlane.workerIndex(for:)`) holds its
/// publisher connections and the first `spreadRoomAfter` subscriber
/// connections; later ones go to the worker holding fewest of the room's.
/// Each other worker with some gets the room's `layout` (relayed publishers
/// and receivers for its router) and the home's packets through a ring.
struct RoomSpread: Sendable {
    /// Placed subscriber sides per worker.
    var subscribers: [Int: Int] = [:]
    var layout = RoomRelayLayout()

    /// The workers other than `home` that hold some of the room's subscribers.
    func satellites(home: Int) -> [Int] {
        subscribers.filter { $0.key != home && $0.value > 0 }.map(\.key).sorted()
    }
}

extension MediaPlane {
    /// The worker of `participant`'s subscriber connection: placed on its
    /// first subscriber-side call, then kept. Called under the state lock;
    /// a worker that newly holds some of the room's subscribers gets the
    /// room's layout and ring before any job of the subscriber's.
    func placeSubscriber(_ state: inout State, _ media: inout ParticipantMedia) -> Int {
        if let placed = media.subscriberWorker { return placed }
        let room = media.room
        let home = media.worker
        var spread = state.spreads[room] ?? RoomSpread()
        var chosen = home
        if workers.count > 1, spread.subscribers[home, default: 0] >= configuration.spreadRoomAfter {
            // Fewest of the room's subscribers; the home first, then by index.
            let order = [home] + (0..<workers.count).filter { $0 != home }
            chosen = order.min { spread.subscribers[$0, default: 0] < spread.subscribers[$1, default: 0] } ?? home
        }
        let isNewSatellite = chosen != home && spread.subscribers[chosen, default: 0] == 0
        spread.subscribers[chosen, default: 0] += 1
        state.spreads[room] = spread
        media.subscriberWorker = chosen
        if isNewSatellite { startRelay(&state, room: room, home: home, to: chosen, layout: spread.layout) }
        return chosen
    }

    /// `participant`'s subscriber side is gone: its worker holds one fewer
    /// of the room's subscribers, and none means no more relay to it.
    func unplaceSubscriber(_ state: inout State, _ media: ParticipantMedia) {
        guard let placed = media.subscriberWorker, var spread = state.spreads[media.room] else { return }
        let remaining = max(0, spread.subscribers[placed, default: 0] - 1)
        spread.subscribers[placed] = remaining == 0 ? nil : remaining
        state.spreads[media.room] = spread
        guard remaining == 0, placed != media.worker else { return }
        let room = media.room
        workers[media.worker].enqueue { rooms in rooms.removeRelayTarget(room: room, worker: placed) }
        workers[placed].enqueue { rooms in rooms.endRelayed(room: room) }
    }

    /// Worker `to` starts forwarding `room` from its home: the ring (made
    /// once per pair of workers), the room's layout, then the home starts
    /// handing packets over.
    private func startRelay(_ state: inout State, room: RoomHandle, home: Int, to worker: Int, layout: RoomRelayLayout) {
        let key = home * workers.count + worker
        let ring: RelayRing
        if let existing = state.rings[key] {
            ring = existing
        } else {
            ring = RelayRing()
            state.rings[key] = ring
        }
        workers[worker].enqueue { rooms in
            rooms.addIncoming(ring)
            rooms.syncRelayed(room: room, home: home, layout: layout)
        }
        let target = RelayTarget(worker: worker, ring: ring, wake: workers[worker].wakeDescriptor)
        workers[home].enqueue { rooms in rooms.addRelayTarget(target, room: room) }
    }

    /// Changes `room`'s layout and sends the whole of it to every worker
    /// that relays the room. Called under the state lock, so the workers
    /// get the layouts in the order they were made.
    func updateLayout(_ state: inout State, room: RoomHandle, _ change: (inout RoomRelayLayout) -> Void) {
        var spread = state.spreads[room] ?? RoomSpread()
        let before = spread.layout
        change(&spread.layout)
        state.spreads[room] = spread
        guard spread.layout != before else { return }
        let home = workerIndex(for: room)
        let layout = spread.layout
        for worker in spread.satellites(home: home) {
            workers[worker].enqueue { rooms in rooms.syncRelayed(room: room, home: home, layout: layout) }
        }
    }

    /// A room with no participant left forgets its spread.
    func forgetSpreadIfEmpty(_ state: inout State, room: RoomHandle) {
        guard !state.participants.values.contains(where: { $0.room == room }) else { return }
        state.spreads[room] = nil
    }
}
