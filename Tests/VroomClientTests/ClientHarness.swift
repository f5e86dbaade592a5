import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing
import VroomTesting

@testable import VroomClient

/// A real `vroom-server --dev` for SDK tests, with helpers to mint tokens,
/// call REST and connect rooms whose events are recorded.
final class ClientHarness: Sendable {
    let server: ServerProcess
    let port: Int
    /// The media worker's UDP port.
    let rtcPort: UInt16
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    private init(_ extra: [String]) throws {
        (server, port) = try ServerProcess.dev(extra)
        rtcPort = UInt16(try server.waitFor(#"media: 1 worker\(s\) on UDP 127\.0\.0\.1 ports (\d+)"#))!
    }

    /// Starts the server. Its blocking waits run on a thread of their own,
    /// not on Swift concurrency's few threads, which other tests' rooms need.
    static func start(_ extra: [String] = []) async throws -> ClientHarness {
        try await offPool { try ClientHarness(extra) }
    }

    /// Runs blocking work (process start, sleeps) on a new thread.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    func stop() { server.stop() }

    func options(_ identity: String, room: String = "room", configure: (inout ConnectOptions) -> Void = { _ in })
        async throws -> ConnectOptions
    {
        let token = try await Self.offPool { try ServerProcess.devToken(identity: identity) }
        var options = ConnectOptions(token: token, roomName: room)
        options.delegateQueue = DispatchQueue(label: "test.delegate.\(identity)")
        options.mediaBindHost = "127.0.0.1"
        configure(&options)
        return options
    }

    /// Connects and records every event of the room from the start.
    func connect(_ options: ConnectOptions, delegate: (any RoomDelegate)? = nil) -> RecordedRoom {
        let room = Room.connect(to: url, options: options, delegate: delegate)
        return RecordedRoom(room)
    }

    /// One REST call with the dev credentials; the status and the JSON body.
    func rest(_ method: String, _ path: String, form: [String: String]? = nil) async throws -> (Int, [String: Any]) {
        try await DevREST.call(port: port, method, path, form: form)
    }
}

/// A room and everything it reported through `Room.events`, in order.
final class RecordedRoom: Sendable {
    let room: Room
    private final class Log: Sendable {
        let events = Mutex<[RoomEvent]>([])
    }

    private let log = Log()
    private let task: Task<Void, Never>

    struct Timeout: Error, CustomStringConvertible {
        var what: String
        var seen: [String]
        var description: String { "timed out waiting for \(what); seen: \(seen.joined(separator: ", "))" }
    }

    init(_ room: Room) {
        self.room = room
        let stream = room.events
        let log = self.log
        task = Task {
            for await event in stream { log.events.withLock { $0.append(event) } }
        }
    }

    var events: [RoomEvent] { log.events.withLock { $0 } }
    var names: [String] { events.map(\.name) }

    /// Waits until an event matches `predicate` (counting from the
    /// start), polling every 20 ms up to `timeout`.
    @discardableResult
    func wait(
        for what: String, timeout: Duration = .seconds(20), _ predicate: @escaping @Sendable (RoomEvent) -> Bool
    ) async throws -> RoomEvent {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let event = events.first(where: predicate) { return event }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Timeout(what: what, seen: names)
    }

    /// Waits for `condition` on anything, polling every 50 ms.
    func wait(until what: String, timeout: Duration = .seconds(20), _ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Timeout(what: what, seen: names)
    }

    func count(_ name: String) -> Int { names.filter { $0 == name }.count }
}

extension RoomEvent {
    /// The case name, for assertions and failure messages.
    var name: String {
        switch self {
        case .connected: "connected"
        case .failedToConnect(let e): "failedToConnect(\(e.code))"
        case .disconnected(let e): "disconnected(\(e.map { "\($0.code)" } ?? "nil"))"
        case .reconnecting(let e): "reconnecting(\(e.code))"
        case .reconnected: "reconnected"
        case .participantConnected(let p): "participantConnected(\(p.identity))"
        case .participantDisconnected(let p): "participantDisconnected(\(p.identity))"
        case .participantReconnecting(let p): "participantReconnecting(\(p.identity))"
        case .participantReconnected(let p): "participantReconnected(\(p.identity))"
        case .trackPublished(let p, let t): "trackPublished(\(p.identity),\(t.trackName))"
        case .trackUnpublished(let p, let t): "trackUnpublished(\(p.identity),\(t.trackName))"
        case .trackSubscribed(let p, let t): "trackSubscribed(\(p.identity),\(t.trackName))"
        case .trackUnsubscribed(let p, let t): "trackUnsubscribed(\(p.identity),\(t.trackName))"
        case .trackEnabled(let p, let t): "trackEnabled(\(p.identity),\(t.trackName))"
        case .trackDisabled(let p, let t): "trackDisabled(\(p.identity),\(t.trackName)\(t.isTrackInterrupted ? ",interrupted" : ""))"
        case .localTrackPublished(let t): "localTrackPublished(\(t.trackName))"
        case .localTrackPublicationFailed(let name, let e): "localTrackPublicationFailed(\(name),\(e.code))"
        case .messageReceived(let m): "messageReceived(\(m.fromIdentity))"
        case .messageSent: "messageSent"
        case .messageFailed(_, let e): "messageFailed(\(e.code))"
        case .dominantSpeakerChanged(let p): "dominantSpeaker(\(p?.identity ?? "nil"))"
        case .networkQualityChanged(_, let level, _): "networkQuality(\(level))"
        case .trackSwitchedOff(let p, let t, let reason): "trackSwitchedOff(\(p.identity),\(t.name),\(reason?.rawValue ?? "nil"))"
        case .trackSwitchedOn(let p, let t): "trackSwitchedOn(\(p.identity),\(t.name))"
        }
    }
}
