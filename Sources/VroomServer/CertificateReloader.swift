import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// Rereads the TLS certificate and key on SIGHUP (PROTOCOL.md section 9),
/// the signal certbot's and most deploy hooks' reload step sends
/// (`systemctl reload`, `kill -HUP`). One of the process's services, so it
/// stops with the rest on SIGTERM.
///
/// swift-service-lifecycle's `UnixSignalsSequence`, the same machinery as
/// the ServiceGroup's SIGTERM handling, turns the signal into an async
/// sequence (a dispatch source), so the reload runs in ordinary code, never
/// in a signal handler.
struct CertificateReloader: Service {
    let certificates: CertificateStore
    let logger: Logger
    private let hangups: UnixSignalsSequence

    /// Traps SIGHUP now, before the server listens, so a SIGHUP sent once
    /// it listens is never the default action (which ends the process).
    init(certificates: CertificateStore, logger: Logger) async {
        self.certificates = certificates
        self.logger = logger
        hangups = await UnixSignalsSequence(trapping: .sighup)
        Self.unblockHangup()
    }

    func run() async throws {
        for await _ in hangups.cancelOnGracefulShutdown() {
            do {
                let leaf = try certificates.reload()
                logger.notice("tls: SIGHUP: new connections get \(leaf); open connections keep theirs")
            } catch {
                logger.error("tls: SIGHUP: reload failed, keeping the previous certificate: \(error)")
            }
        }
    }

    /// A parent may spawn us with SIGHUP blocked (Foundation's Process passes
    /// on its thread's signal mask; see `unblockTerminationSignals`).
    static func unblockHangup() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGHUP)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }
}
