import HummingbirdWebSocket
import Synchronization

/// A session's client frames, read off the socket as they arrive and
/// handled one at a time, in order. The reader never waits for a request
/// to be handled, so the WebSocket's control frames are seen meanwhile:
/// the client's pongs to the server's pings, and its close. (A reader held
/// by a join waiting on the database let the ping timer cut a healthy
/// client off with a TCP reset.) Bounded: a client that sends faster than
/// its requests are handled is cut off, as one that does not read is.
final class SessionInbox: Sendable {
    let frames: AsyncStream<WebSocketMessage>
    private let continuation: AsyncStream<WebSocketMessage>.Continuation
    private let queuedBytes = Mutex(0)
    private let byteCapacity: Int

    init(capacity: Int, byteCapacity: Int) {
        (frames, continuation) = AsyncStream.makeStream(of: WebSocketMessage.self, bufferingPolicy: .bufferingOldest(capacity))
        self.byteCapacity = byteCapacity
    }

    /// Queues a frame from the client; false when the inbox is full.
    func put(_ frame: WebSocketMessage) -> Bool {
        let size = Self.size(frame)
        let fits = queuedBytes.withLock { queued in
            guard queued + size <= byteCapacity || queued == 0 else { return false }
            queued += size
            return true
        }
        guard fits else { return false }
        if case .dropped = continuation.yield(frame) { return false }
        return true
    }

    /// A frame taken out of `frames` to be handled.
    func taken(_ frame: WebSocketMessage) {
        let size = Self.size(frame)
        queuedBytes.withLock { $0 -= size }
    }

    /// No more frames: the handler ends after those queued.
    func finish() {
        continuation.finish()
    }

    private static func size(_ frame: WebSocketMessage) -> Int {
        switch frame {
        case .text(let text): text.utf8.count
        case .binary(let buffer): buffer.readableBytes
        }
    }
}
