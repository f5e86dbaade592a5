import AdminAPI
import HummingbirdCore
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Signaling

/// HTTPS and WSS on the HTTP port (PROTOCOL.md section 9, `tls.cert` and
/// `tls.key`): the certificates, the HTTP server that presents them, and
/// the SIGHUP service that rereads them. Without both keys the server
/// speaks plain HTTP and none of this exists.
struct TLSFrontEnd {
    let certificates: CertificateStore
    let handshakeTimeout: TimeAmount

    /// Reads the PEM files; nil without TLS configured. A file that cannot
    /// serve is a `ConfigurationError` (one line; the process exits 1).
    static func load(_ settings: ServerConfiguration.TLS) throws -> TLSFrontEnd? {
        guard let cert = settings.cert, let key = settings.key else { return nil }
        do {
            return TLSFrontEnd(
                certificates: try CertificateStore(certificatePath: cert, keyPath: key),
                handshakeTimeout: .nanoseconds(Int64(settings.handshakeTimeoutSeconds * 1_000_000_000)))
        } catch {
            throw ConfigurationError(error.description)
        }
    }

    /// The signaling endpoint's HTTP/1 + WebSocket channel inside TLS;
    /// handshakes that fail or time out count in
    /// `vroom_tls_handshakes_failed_total{reason}`.
    func httpServer(_ signaling: SignalingEndpoint, metrics: NodeMetrics) -> HTTPServerBuilder {
        metrics.countTLSHandshakeFailures(reasons: TLSHandshakeTimeoutHandler.Failure.allCases.map(\.rawValue))
        let certificates = certificates
        let handshakeTimeout = handshakeTimeout
        return HTTPServerBuilder { responder in
            ReloadableTLSChannel(
                base: signaling.httpChannel(responder: responder), certificates: certificates,
                handshakeTimeout: handshakeTimeout
            ) { failure in
                metrics.tlsHandshakeFailed(reason: failure.rawValue)
            }
        }
    }

    /// The service that rereads the files on SIGHUP (trapping it from now on).
    func reloader(logger: Logger) async -> CertificateReloader {
        await CertificateReloader(certificates: certificates, logger: logger)
    }
}
