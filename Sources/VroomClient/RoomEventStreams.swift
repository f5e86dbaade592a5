import Foundation
import Synchronization

/// The open `Room.events` streams: every event goes to each of them.
final class RoomEventStreams: Sendable {
    private let continuations = Mutex<[UUID: AsyncStream<RoomEvent>.Continuation]>([:])
    private let finished = Mutex(false)

    func makeStream() -> AsyncStream<RoomEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: RoomEvent.self, bufferingPolicy: .bufferingNewest(10_000))
        let id = UUID()
        if finished.withLock({ $0 }) {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.continuations.withLock { $0.removeValue(forKey: id) }
        }
        continuations.withLock { $0[id] = continuation }
        return stream
    }

    func yield(_ event: RoomEvent) {
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.yield(event) }
    }

    func finish() {
        finished.withLock { $0 = true }
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
