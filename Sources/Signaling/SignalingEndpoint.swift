import Foundation
import Hummingbird
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

    /// Adds the `/v1/signal` route. With ``SignalingRequestContext`` (or any
    /// ``ChannelProvidingContext``) the client's WebSocket ping and pong
    /// frames count as traffic for the silence rule; otherwise only data
    /// frames do.
    public func register<Context: WebSocketRequestContext>(on router: Router<Context>) {
        router.ws("/v1/signal") { inbound, outbound, context in
            let session = SignalingSession(
                node: node, verifier: verifier, settings: settings, token: Self.accessToken(of: context.request),
                subscribers: subscribers, metrics: metrics, logger: context.logger, clock: clock)
            if let channel = (context.requestContext as? any ChannelProvidingContext)?.channel {
                do {
                    try await ControlFrameObserver.install(on: channel) { session.receiveControlFrame() }
                } catch {
                    context.logger.debug("ping/pong frames will not count as traffic: \(error)")
                }
            }
            await run(session, inbound: inbound, outbound: outbound, logger: context.logger)
        }
    }

    /// Three loops until the first ends: frames in, the outbox out, and a
    /// once-a-second liveness check. Then the socket closes (Hummingbird
    /// closes it when the handler returns) and a drop is reported. A session
    /// that ends on the server's side sends its close frame first and waits
    /// for the client's (RFC 6455 section 7.1.2).
    func run(
        _ session: SignalingSession, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, logger: Logger
    ) async {
        let outbox = session.outbox
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        switch message {
                        case .text(let text): await session.receive(text)
                        case .binary: await session.receiveBinary()
                        }
                    }
                } catch {
                    logger.debug("signaling socket read ended: \(error)")
                }
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
                    return
                }
                if outbox.overflowed {
                    logger.notice("signaling client does not read: its outbox overflowed, cutting it off")
                    return
                }
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
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    if await !session.tick() {
                        // The 53002 is queued: the writer sends it and ends the
                        // session; ending here could cancel it before it is sent.
                        while !Task.isCancelled { try? await Task.sleep(for: .seconds(60)) }
                    }
                }
            }
            await group.next()
            group.cancelAll()
        }
        await session.closed()
    }

    static func accessToken(of request: Request) -> String? {
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") {
            return String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
        }
        return request.uri.queryParameters.get("access_token")
    }
}
