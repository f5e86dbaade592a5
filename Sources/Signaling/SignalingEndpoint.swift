import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import Node

/// `GET /v1/signal` upgraded to a WebSocket (PROTOCOL.md sections 1 and 3).
/// The upgrade is always accepted (browsers cannot read an HTTP error on an
/// upgrade); the access token (`Authorization: Bearer`, or the
/// `access_token` query parameter) is checked when `join` arrives.
public struct SignalingEndpoint: Sendable {
    public let node: Node
    public let verifier: AccessTokenVerifier
    public let settings: SignalingSettings
    /// Join durations and error codes for the node's metrics.
    public let metrics: SignalingMetrics
    let clock: @Sendable () -> Date
    let subscribers = SubscriberStates()
    /// Every session's once-a-second `tick`, from one task.
    let ticker = SessionTicker()

    public init(
        node: Node, verifier: AccessTokenVerifier, settings: SignalingSettings = SignalingSettings(),
        metrics: SignalingMetrics = .none, clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.node = node
        self.metrics = metrics
        self.verifier = verifier
        self.settings = settings
        self.clock = clock
    }

    /// The server's WebSocket settings: frames up to 1 MiB are read, so that
    /// a client frame over the 64 KiB protocol limit gets its 53003 answer
    /// instead of a dropped connection; the server pings every 5 s.
    public var webSocketConfiguration: WebSocketServerConfiguration {
        WebSocketServerConfiguration(
            maxFrameSize: 1 << 20,
            autoPing: .enabled(timePeriod: .milliseconds(Int64(settings.pingInterval * 1000))))
    }

    /// The server's HTTP/1 builder: a WebSocket upgrade of `/v1/signal`
    /// runs a session, and every other request goes to `router`'s routes.
    /// The upgrade is decided here, on the connection's channel, rather than
    /// in a router route: Hummingbird's router-based upgrade keeps the
    /// route's request context in a box that the context itself owns, a
    /// cycle that kept about 1 KB per connection alive for good
    /// (`scripts/churn.sh`, heaptrack).
    public var httpServer: HTTPServerBuilder {
        .init { responder in httpChannel(responder: responder) }
    }

    /// The child channel `httpServer` builds, for a server that wraps it
    /// (vroom-server's TLS, which swaps certificates on SIGHUP).
    public func httpChannel(responder: @escaping HTTPChannelHandler.Responder) -> HTTP1WebSocketUpgradeChannel {
        HTTP1WebSocketUpgradeChannel(responder: responder, configuration: .init(ws: webSocketConfiguration)) {
            request, channel, logger in
            guard request.path.map(Self.isSignalingPath) ?? false else { return .dontUpgrade }
            let token = Self.accessToken(authorization: request.headerFields[.authorization], target: request.path)
            return .upgrade([:]) { [weak channel] inbound, outbound, context in
                await serve(token: token, channel: channel, inbound: inbound, outbound: outbound, logger: context.logger)
            }
        }
    }

    /// Answers a plain `GET /v1/signal` (no upgrade) with 426 Upgrade Required.
    public func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("/v1/signal") { _, _ in
            Response(
                status: .upgradeRequired, headers: [.upgrade: "websocket", .connection: "Upgrade"])
        }
    }

    /// One signaling connection: the client's WebSocket ping and pong frames
    /// count as traffic for the silence rule (``ControlFrameObserver``).
    func serve(
        token: String?, channel: (any Channel)?, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter,
        logger: Logger
    ) async {
        let session = SignalingSession(
            node: node, verifier: verifier, settings: settings, token: token,
            subscribers: subscribers, metrics: metrics, logger: logger, clock: clock)
        if let channel {
            do {
                try await ControlFrameObserver.install(on: channel) { session.receiveControlFrame() }
            } catch {
                logger.debug("ping/pong frames will not count as traffic: \(error)")
            }
        }
        await run(session, inbound: inbound, outbound: outbound, logger: logger)
    }

    /// Three loops: the reader queues the client's frames in the session's
    /// inbox as they arrive (``SessionInbox``), the handler runs them one at
    /// a time, and the writer sends the outbox, while the endpoint's `ticker`
    /// checks liveness once a second. When the handler (after the frames
    /// the client sent before it closed) or the writer ends, the socket
    /// closes (Hummingbird closes it when this returns) and a drop is
    /// reported. A session that ends on the server's side sends its close
    /// frame first and waits for the client's (RFC 6455 section 7.1.2).
    func run(
        _ session: SignalingSession, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, logger: Logger
    ) async {
        enum Ended { case reading, session }
        let outbox = session.outbox
        let inbox = SessionInbox(capacity: settings.inboxCapacity, byteCapacity: settings.inboxByteCapacity)
        ticker.add(session)
        await withTaskGroup(of: Ended.self) { group in
            group.addTask {
                defer { inbox.finish() }
                do {
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard inbox.put(message) else {
                            logger.notice("signaling client sends faster than its requests are handled: its inbox overflowed, cutting it off")
                            return .session  // now, not after the queued frames
                        }
                    }
                } catch {
                    logger.debug("signaling socket read ended: \(error)")
                }
                return .reading
            }
            group.addTask {
                for await message in inbox.frames {
                    inbox.taken(message)
                    switch message {
                    case .text(let text): await session.receive(text)
                    case .binary: await session.receiveBinary()
                    }
                }
                return .session
            }
            group.addTask {
                do {
                    writing: for await item in outbox.items {
                        switch item {
                        case .message(let message):
                            metrics.count(message)
                            try await outbound.write(.text(SignalingCodec.encode(message)))
                        case .notice(.subscriptionsChanged):
                            if let offer = await session.nextOffer() {
                                metrics.count(offer)  // a 53401 when no offer could be made
                                try await outbound.write(.text(SignalingCodec.encode(offer)))
                            }
                        case .notice(let notice):
                            if let message = ServerMessage(notice) {
                                metrics.count(message)
                                try await outbound.write(.text(SignalingCodec.encode(message)))
                            }
                        case .finalMessage(let message):
                            metrics.count(message)
                            try await outbound.write(.text(SignalingCodec.encode(message)))
                            break writing
                        }
                    }
                } catch {
                    logger.debug("signaling socket write ended: \(error)")
                    return .session
                }
                if outbox.overflowed {
                    logger.notice("signaling client does not read: its outbox overflowed, cutting it off")
                    return .session
                }
                // Another loop ended the session (the client closed, or
                // was cut off): Hummingbird's own close follows. A close
                // written from this cancelled task would be dropped, and
                // then waited for.
                if Task.isCancelled { return .session }
                // The session ended on our side (leave, a `disconnected`):
                // close the WebSocket from this task and give the client 2 s
                // to answer; its close frame ends the reader, and with it
                // the session. Cancelling the reader instead could cancel
                // Hummingbird's own reply to a close frame arriving at that
                // moment (a cancelled write is dropped), and the client
                // would wait for it until its close timeout.
                await withTaskGroup(of: Void.self) { closing in
                    closing.addTask { try? await outbound.close(.normalClosure, reason: nil) }
                    try? await Task.sleep(for: .seconds(2))
                    closing.cancelAll()
                }
                return .session
            }
            // The reader's end is not the session's: the handler first
            // runs what the client sent before it closed.
            while let ended = await group.next(), ended == .reading {}
            group.cancelAll()
        }
        ticker.remove(session)
        await session.closed()
    }

    static func accessToken(authorization: String?, target: String?) -> String? {
        if let header = authorization, header.lowercased().hasPrefix("bearer ") {
            return String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
        }
        return target.flatMap { URI($0).queryParameters.get("access_token") }
    }

    /// `/v1/signal`, with or without a query.
    static func isSignalingPath(_ target: String) -> Bool {
        URI(target).path == "/v1/signal"
    }
}
