import Rooms

extension RoomHost {
    /// Routes an event of the media plane to the sessions it concerns: a
    /// failed connection to its participant (as an `error`), network quality
    /// and dominant speaker to everyone in the room, a switch-off to its
    /// subscriber, the active layers to the track's publisher. Returns a line for the
    /// server's log when the event is worth one (a failure).
    @discardableResult
    public func handle(_ event: RoomMediaEvent) -> String? {
        remember(event)
        switch event {
        case .connected:
            return nil
        case .failed(let participant, let connection, let code, let message):
            let protocolCode = ProtocolErrorCode(rawValue: code) ?? .mediaConnectionError
            notify(participant, .mediaError(protocolCode, message: "\(connection.rawValue) connection: \(message)"))
            return "\(participant.rawValue): \(connection.rawValue) media connection failed: \(code) \(message)"
        case .networkQuality(let room, let participant, let level, let warnings):
            broadcast(room: room, .networkQuality(participant: participant, level: level, warnings: warnings))
            return nil
        case .dominantSpeaker(let room, let participant):
            broadcast(room: room, .dominantSpeaker(participant))
            return nil
        case .trackSwitchedOff(let subscriber, let track, let reason):
            notify(subscriber, .trackSwitchedOff(track, reason: reason))
            return nil
        case .trackSwitchedOn(let subscriber, let track):
            notify(subscriber, .trackSwitchedOn(track))
            return nil
        case .publisherLayers(let publisher, let track, let active):
            notify(publisher, .publisherLayers(track, active: active))
            return nil
        }
    }
}
