import SFU

extension MediaWorkerRooms {
    /// Turns the router's layer events into media events in handles: a
    /// switch-off or -on for the subscriber it concerns, the active layers
    /// for the track's publisher. An event about a connection that is gone
    /// is dropped.
    func reportLayerEvents(of router: Router, room: RoomHandle) {
        for event in router.takeEvents() {
            switch event {
            case .switchedOff(let track, let subscriber, let reason):
                guard let connection = connection(subscriber) else { continue }
                events(.trackSwitchedOff(
                    room: room, subscriber: connection.participant, track: TrackHandle(rawValue: track.rawValue),
                    reason: reason))
            case .switchedOn(let track, let subscriber):
                guard let connection = connection(subscriber) else { continue }
                events(.trackSwitchedOn(room: room, subscriber: connection.participant, track: TrackHandle(rawValue: track.rawValue)))
            case .publisherLayers(let track, let active):
                // The publisher hears the union of what every worker's
                // subscribers need, from the room's home.
                if let home = relay.homes[room] {
                    let worker = index
                    peers.enqueue(on: home) { rooms in rooms.demandLayers(room: room, track: track, worker: worker, active: active) }
                } else {
                    demandLayers(room: room, track: track, worker: index, active: active)
                }
            }
        }
    }
}
