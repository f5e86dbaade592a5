import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOWebSocket

/// A WebSocket client of `/v1/signal` for tests: sends JSON objects, and
/// waits for the server's messages by type. Every received message is kept,
/// in order, so a test can also check what did NOT arrive.
final class SignalingClient: Sendable {
    /// What arrived; shared with the connection's task.
    final class Inbox: @unchecked Sendable {
        // @unchecked: `received` and `closed` are only touched under `lock`.
        private let lock = NSLock()
        private var received: [[String: Any]] = []
        private var closed = false
        private var failure: String?
        func append(_ object: [String: Any]) { lock.withLock { received.append(object) } }
        func markClosed() { lock.withLock { closed = true } }
        func fail(_ error: any Error) { lock.withLock { failure = "\(error)" } }
        var connectionError: String? { lock.withLock { failure } }
        var messages: [[String: Any]] { lock.withLock { received } }
        var isClosed: Bool { lock.withLock { closed } }
    }

    private let inbox = Inbox()
    /// What the test asks to send: a text frame or a WebSocket ping.
    enum Outgoing: Sendable {
        case text(String)
        case ping
    }

    private let outgoing: AsyncStream<Outgoing>.Continuation
    private let task: Task<Void, Never>

    /// Connects with the token as the `access_token` query parameter (as a browser would).
    init(port: Int, token: String?) {
        let (stream, continuation) = AsyncStream.makeStream(of: Outgoing.self)
        outgoing = continuation
        let query = token.map { "?access_token=\($0)" } ?? ""
        let url = "ws://127.0.0.1:\(port)/v1/signal\(query)"
        var config = WebSocketClientConfiguration()
        config.maxFrameSize = 1 << 20
        let inbox = self.inbox
        task = Task { [config] in
            do {
                _ = try await WebSocketClient.connect(url: url, configuration: config, logger: Logger(label: "test.ws")) {
                inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            guard case .text(let text) = message,
                                let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                            else { continue }
                            inbox.append(object)
                        }
                    }
                    group.addTask {
                        for await item in stream {
                            switch item {
                            case .text(let text): try await outbound.write(.text(text))
                            case .ping:
                                try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(string: "vroom"))))
                            }
                        }
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                    try await group.next()
                    group.cancelAll()
                }
                }
            } catch {
                inbox.fail(error)
            }
            inbox.markClosed()
        }
    }

    deinit {
        outgoing.finish()
    }

    var messages: [[String: Any]] { inbox.messages }
    var isClosed: Bool { inbox.isClosed }

    func send(_ object: [String: Any]) {
        let data = try! JSONSerialization.data(withJSONObject: object)
        outgoing.yield(.text(String(decoding: data, as: UTF8.self)))
    }

    func sendRaw(_ text: String) {
        outgoing.yield(.text(text))
    }

    /// Sends a WebSocket ping control frame (no JSON).
    func sendPing() {
        outgoing.yield(.ping)
    }

    /// Closes the socket from the client side.
    func close() async {
        outgoing.finish()
        await task.value
    }

    /// Waits (up to `timeout`) for the `index`-th message (0-based) of `type`.
    @discardableResult
    func next(_ type: String, index: Int = 0, where predicate: ([String: Any]) -> Bool = { _ in true }, timeout: Double = 30)
        async throws -> [String: Any]
    {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let matches = messages.filter { $0["type"] as? String == type && predicate($0) }
            if matches.count > index { return matches[index] }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw SignalingClientError.timeout("no \(type) #\(index) within \(timeout)s; got \(messages.map { $0["type"] as? String ?? "?" })\(inbox.connectionError.map { "; connection failed: \($0)" } ?? "")")
    }

    func count(_ type: String) -> Int {
        messages.filter { $0["type"] as? String == type }.count
    }

    /// Waits until the socket is closed by the server.
    func waitClosed(timeout: Double = 30) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !isClosed {
            guard Date() < deadline else { throw SignalingClientError.timeout("socket still open") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

enum SignalingClientError: Error { case timeout(String) }
