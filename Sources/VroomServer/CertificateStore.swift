import Foundation
import NIOConcurrencyHelpers
import NIOSSL

/// The TLS context new connections take (PROTOCOL.md section 9), read from
/// the PEM files of `tls.cert` and `tls.key`, and read again on SIGHUP.
///
/// Each accepted connection takes `current` once and keeps that
/// `NIOSSLContext` for its life (NIOSSL reference-counts it), so a reload
/// changes what new connections present and leaves open ones alone. A reload
/// that fails (a file missing, half written, not PEM, a key that does not
/// match) throws and keeps the context it had.
final class CertificateStore: Sendable {
    let certificatePath: String
    let keyPath: String
    private let context: NIOLockedValueBox<NIOSSLContext>

    /// A certificate file, key file or pair that cannot serve: one line, for
    /// the log (SIGHUP) or the exit message (start).
    struct LoadError: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads both files now; throws `LoadError` when they cannot serve.
    init(certificatePath: String, keyPath: String) throws(LoadError) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        context = NIOLockedValueBox(try Self.load(certificatePath: certificatePath, keyPath: keyPath))
    }

    /// The context for a connection being accepted.
    var current: NIOSSLContext { context.withLockedValue { $0 } }

    /// Reads the files again and, when they can serve, makes them current.
    /// Returns the new leaf certificate's summary, for the log.
    @discardableResult
    func reload() throws(LoadError) -> String {
        let fresh = try Self.load(certificatePath: certificatePath, keyPath: keyPath)
        context.withLockedValue { $0 = fresh }
        return leafSummary
    }

    /// NIOSSL's one-line summary of the chain's first certificate (serial,
    /// common name, alternative names), for the log.
    var leafSummary: String {
        ((try? NIOSSLCertificate.fromPEMFile(certificatePath))?.first).map { "\($0)" } ?? certificatePath
    }

    /// A server context from the two PEM files. BoringSSL checks that the
    /// key matches the leaf certificate when the context is made, so a
    /// mismatched pair fails here rather than at the first handshake.
    static func load(certificatePath: String, keyPath: String) throws(LoadError) -> NIOSSLContext {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw LoadError(
                description: "cannot read the TLS certificate \(certificatePath) (tls.cert): \(reason(error, path: certificatePath))")
        }
        guard !chain.isEmpty else {
            throw LoadError(description: "the TLS certificate \(certificatePath) (tls.cert) holds no PEM certificate")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw LoadError(description: "cannot read the TLS key \(keyPath) (tls.key): \(reason(error, path: keyPath))")
        }
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw LoadError(description: "the TLS key \(keyPath) does not fit the certificate \(certificatePath): \(error)")
        }
    }

    /// "no such file" or "not valid PEM" rather than BoringSSL's error stack alone.
    private static func reason(_ error: any Error, path: String) -> String {
        if !FileManager.default.fileExists(atPath: path) { return "no such file" }
        if !FileManager.default.isReadableFile(atPath: path) { return "permission denied" }
        return "not valid PEM (\(error))"
    }
}
