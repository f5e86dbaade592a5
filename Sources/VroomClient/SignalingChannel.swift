import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOSSL

/// One WebSocket to the server's `/v1/signal`. Text frames in go to
/// `onText`; `send` queues a frame out; `onClose` is called once, with the
/// reason when the socket failed. Callbacks run on NIO threads: the owner
/// hops to its own event loop.
final class SignalingChannel: Sendable {
    private let outgoing: AsyncStream<String>.Continuation
    private let task: Task<Void, Never>

    struct Callbacks: Sendable {
        var onOpen: @Sendable () -> Void
        var onText: @Sendable (String) -> Void
        var onClose: @Sendable (_ failure: String?) -> Void
    }

    /// Connects to `url` (ws:// or wss://, path included) with the token as
    /// the `access_token` query parameter, as browsers must.
    init(
        url: String, token: String, tlsConfiguration: TLSConfiguration? = nil, eventLoopGroup: any EventLoopGroup,
        logger: Logger, callbacks: Callbacks
    ) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
        outgoing = continuation
        let separator = url.contains("?") ? "&" : "?"
        let address = url + separator + "access_token=" + token
        var configuration = WebSocketClientConfiguration()
        // Server frames are not capped (a 50-person subscriber offer is about 75 KB).
        configuration.maxFrameSize = 1 << 22
        task = Task { [configuration] in
            do {
                _ = try await WebSocketClient.connect(
                    url: address, configuration: configuration, tlsConfiguration: tlsConfiguration,
                    eventLoopGroup: eventLoopGroup, logger: logger
                ) { inbound, outbound, _ in
                    callbacks.onOpen()
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await message in inbound.messages(maxSize: 1 << 22) {
                                if case .text(let text) = message { callbacks.onText(text) }
                            }
                        }
                        group.addTask {
                            for await text in stream { try await outbound.write(.text(text)) }
                            try await outbound.close(.normalClosure, reason: nil)
                        }
                        // Either side ending ends the connection.
                        try await group.next()
                        group.cancelAll()
                    }
                }
                callbacks.onClose(nil)
            } catch is CancellationError {
                callbacks.onClose(nil)
            } catch {
                callbacks.onClose("\(error)")
            }
        }
    }

    func send(_ signal: ClientSignal) {
        outgoing.yield(signal.text)
    }

    /// Sends what is queued, then closes the socket.
    func close() {
        outgoing.finish()
    }

    /// Drops the socket without a close handshake (tests and dead peers).
    func abort() {
        outgoing.finish()
        task.cancel()
    }
}
