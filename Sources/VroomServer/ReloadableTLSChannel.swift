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
struct ReloadableTLSChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let certificates: CertificateStore
    let handshakeTimeout: TimeAmount
    let onHandshakeFailure: @Sendable (TLSHandshakeTimeoutHandler.Failure) -> Void

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let context = certificates.current
        return channel.eventLoop.makeCompletedFuture {
            let sync = channel.pipeline.syncOperations
            try sync.addHandler(NIOSSLServerHandler(context: context))
            try sync.addHandler(TLSHandshakeTimeoutHandler(timeout: handshakeTimeout, onFailure: onHandshakeFailure))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
