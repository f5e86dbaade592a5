import Foundation

/// A self-signed certificate and its key for 127.0.0.1 and localhost, made
/// by the `openssl` command (scripts/bootstrap.sh installs it) for tests
/// that run `vroom-server --tls-cert … --tls-key …`.
public struct TestCertificate: Sendable {
    public let certificatePath: String
    public let keyPath: String
    public let commonName: String

    public struct OpenSSLFailed: Error, CustomStringConvertible {
        public var arguments: [String]
        public var output: String
        public var description: String { "openssl \(arguments.joined(separator: " ")) failed: \(output)" }
    }

    /// A P-256 certificate valid for a day, `CN=<commonName>`, with
    /// 127.0.0.1 and localhost as subject alternative names, written as
    /// `<commonName>.cert.pem` and `<commonName>.key.pem` in `directory`.
    public static func make(commonName: String, in directory: URL) throws -> TestCertificate {
        let certificate = directory.appendingPathComponent("\(commonName).cert.pem").path
        let key = directory.appendingPathComponent("\(commonName).key.pem").path
        try openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-subj", "/CN=\(commonName)", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-days", "1",
            "-keyout", key, "-out", certificate,
        ])
        return TestCertificate(certificatePath: certificate, keyPath: key, commonName: commonName)
    }

    /// Copies this certificate and key over `other`'s files (as a renewal does).
    public func install(over other: TestCertificate) throws {
        for (from, to) in [(certificatePath, other.certificatePath), (keyPath, other.keyPath)] {
            let data = try Data(contentsOf: URL(fileURLWithPath: from))
            try data.write(to: URL(fileURLWithPath: to), options: .atomic)
        }
    }

    /// The subject of the certificate a new TLS connection to 127.0.0.1:`port`
    /// is shown (`openssl s_client`), e.g. `CN = localhost`; nil when the
    /// handshake fails.
    public static func presented(atPort port: Int) throws -> String? {
        let output = try openssl(["s_client", "-connect", "127.0.0.1:\(port)", "-servername", "localhost"], input: Data())
        for line in output.split(separator: "\n") where line.hasPrefix("subject=") {
            return line.dropFirst("subject=".count).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// Runs `openssl` with `arguments`; its stdout and stderr together.
    /// s_client exits 0 even when the handshake fails, so only `req` failing throws.
    @discardableResult
    static func openssl(_ arguments: [String], input: Data? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        while process.isRunning { Thread.sleep(forTimeInterval: 0.01) }
        let text = String(decoding: data, as: UTF8.self)
        if process.terminationStatus != 0, arguments.first == "req" {
            throw OpenSSLFailed(arguments: arguments, output: text)
        }
        return text
    }
}
