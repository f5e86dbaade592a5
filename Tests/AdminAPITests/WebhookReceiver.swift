import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle
import VroomTesting
#if canImport(Glibc)
import Glibc
#endif

/// What a test receiver saw: every request, including the ones it failed.
actor RequestRecorder {
    struct Received: Sendable {
        var name: String
        var method: String
        var query: String?
        var contentType: String?
        var signature: String?
        var body: String
        /// The status the receiver answered.
        var status: Int

        /// Form parameters from the body (POST) or the query (GET).
        var parameters: [(name: String, value: String)] {
            let text = method == "GET" ? (query ?? "") : body
            return text.split(separator: "&").map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                func decode(_ s: Substring) -> String {
                    s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s)
                }
                return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
            }
        }

        func parameter(_ name: String) -> String? {
            parameters.first { $0.name == name }?.value
        }
    }

    private(set) var received: [Received] = []
    /// Per hook name: how many requests still get a 500.
    private var failuresLeft: [String: Int] = [:]

    func failNext(_ count: Int, for name: String) {
        failuresLeft[name] = count
    }

    func record(_ request: Received) -> Int {
        var request = request
        if let left = failuresLeft[request.name], left > 0 {
            failuresLeft[request.name] = left - 1
            request.status = 500
        } else {
            request.status = 204
        }
        received.append(request)
        return request.status
    }

    /// The requests of one hook that were answered 2xx, in arrival order.
    func accepted(_ name: String) -> [Received] {
        received.filter { $0.name == name && $0.status < 300 }
    }

    func all(_ name: String) -> [Received] {
        received.filter { $0.name == name }
    }
}

/// A real Hummingbird server on 127.0.0.1 that records `/hooks/{name}`.
struct WebhookReceiver {
    let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    func url(_ name: String) -> String { "http://127.0.0.1:\(port)/hooks/\(name)" }

    /// Starts on `port` (0: the kernel picks one) and returns once listening.
    static func start(recorder: RequestRecorder, port: Int = 0) async throws -> WebhookReceiver {
        let router = Router()
        let handler: @Sendable (Request, BasicRequestContext) async throws -> HTTPResponse.Status = { request, context in
            let body = try await request.body.collect(upTo: 1 << 20)
            let status = await recorder.record(.init(
                name: context.parameters.get("name") ?? "",
                method: request.method.rawValue,
                query: request.uri.query,
                contentType: request.headers[.contentType],
                signature: request.headers[HTTPField.Name("X-Vroom-Signature")!],
                body: String(buffer: body),
                status: 0))
            return HTTPResponse.Status(code: status)
        }
        router.post("hooks/{name}", use: handler)
        router.get("hooks/{name}", use: handler)

        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "test.receiver")
        logger.logLevel = .warning
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? -1)
                portContinuation.finish()
            },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next(), bound > 0 else {
            task.cancel()
            throw ReceiverError.notListening
        }
        return WebhookReceiver(port: bound, group: group, task: task)
    }

    /// Graceful: the server finishes open requests, then stops.
    func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }

    enum ReceiverError: Error { case notListening }
}

/// A TCP port on 127.0.0.1 for URLs that fail in a controlled way.
final class DeadPort: Sendable {
    let port: Int
    private let fd: Int32

    /// `listening: false`: bound then closed, so connecting is refused.
    /// `listening: true`: listens but never accepts nor answers, so a
    /// request hangs until its timeout (a "slow" receiver).
    init(listening: Bool) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound, !listening || listen(fd, 64) == 0 else {
            close(fd)
            isOpen = false
            port = 0
            throw WebhookReceiver.ReceiverError.notListening
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        if !listening { close(fd) }
        isOpen = listening
    }

    private let isOpen: Bool

    func url(_ name: String) -> String { "http://127.0.0.1:\(port)/hooks/\(name)" }

    deinit {
        if isOpen { close(fd) }
    }
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes.
/// The timeouts are generous: they bound a broken test, not a slow machine.
func eventually(timeout: Duration = .seconds(30), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}
