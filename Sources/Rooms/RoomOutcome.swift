/// A result with the events that came with it.
public struct RoomOutcome<Value: Sendable>: Sendable {
    public var value: Value
    public var events: [RoomEvent]

    public init(value: Value, events: [RoomEvent]) {
        self.value = value
        self.events = events
    }
}
