import HummingbirdCore
import Logging
import NIOCore
import NIOSSL

/// Wraps the HTTP server's child channel (HTTP/1 with the signaling
/// WebSocket upgrade) in TLS, so HTTPS and WSS share the HTTP port.
///
/// Why not HummingbirdTLS's `.tls(_:tlsConfiguration:)`: its `TLSChannel`
/// makes one `NIOSSLContext` when the server is built and keeps it in a
/// `let`, so a new certificate would need a new server (dropping every open
/// connection). NIOSSL's `sslContextCallback` could swap the certificate per
/// handshake, but it applies an override to each connection's SSL object on
/// every handshake and still gives no handshake timeout. So this is
/// `TLSChannel`'s few lines with two changes: each accepted connection takes
/// the context that is current in `certificates` (a lock-protected box that
/// SIGHUP refills), and a `TLSHandshakeTimeoutHandler` closes connections
/// that do not finish their handshake in time.
///
/// `handle` waits for the handshake before it hands the connection to the
/// base channel: the HTTP/1 + WebSocket channel logs an error for every
/// connection that ends before its first request, which for a flood of
/// abandoned handshakes would be one error line each. A failed handshake is
/// counted (`vroom_tls_handshakes_failed_total`) and logged at debug instead.
/// Nothing is lost by waiting: no request can arrive before the handshake.
struct ReloadableTLSChannel<Base: ServerChildChannel>: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        let base: Base.Value
        /// Succeeds when the TLS handshake completes; fails when the connection ends first.
        let handshake: EventLoopFuture<Void>
        var channel: any Channel { base.channel }
    }

    let base: Base
    let certificates: CertificateStore
    let handshakeTimeout: TimeAmount
    let onHandshakeFailure: @Sendable (TLSHandshakeTimeoutHandler.Failure) -> Void

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let context = certificates.current
        let handshake = channel.eventLoop.makePromise(of: Void.self)
        return channel.eventLoop.makeCompletedFuture {
            let sync = channel.pipeline.syncOperations
            try sync.addHandler(NIOSSLServerHandler(context: context))
            try sync.addHandler(
                TLSHandshakeTimeoutHandler(timeout: handshakeTimeout, handshake: handshake, onFailure: onHandshakeFailure))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }.map { base in
            Value(base: base, handshake: handshake.futureResult)
        }.flatMapErrorThrowing { error in
            handshake.fail(error)  // the handler was never added: the promise must not leak
            throw error
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            try await value.handshake.get()
        } catch {
            logger.debug("tls: connection closed before its handshake completed: \(error)")
            try? await value.channel.close()
            return
        }
        await base.handle(value: value.base, logger: logger)
    }
}
