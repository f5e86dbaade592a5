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
                events(.publisherLayers(room: room, track: TrackHandle(rawValue: track.rawValue), active: active))
            }
        }
    }
}
