import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import Testing
import VroomTesting

@testable import VroomClient

extension ClientProcessTests {
/// HTTPS and WSS on the HTTP port (PROTOCOL.md section 9, `--tls-cert`,
/// `--tls-key`): a real `vroom-server` with a self-signed certificate made
/// by `openssl`, clients that trust only that certificate, the SDK joining
/// over `wss://`, plain HTTP refused, a SIGHUP reload, a flood of
/// handshakes that stop half way, and configurations that cannot start.
@Suite(.serialized) struct TLSEndToEndTests {
    /// A server started with `certificate`, and the folder its files live in.
    struct Server {
        let process: ServerProcess
        let port: Int
        let directory: URL
        /// By name: swift-websocket's client sends the URL's host as SNI,
        /// which NIOSSL refuses for an IP address (the SDK cannot reach
        /// `wss://127.0.0.1`); the certificate names localhost too.
        var url: URL { URL(string: "https://localhost:\(port)")! }

        func stop() {
            process.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vroom-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// `vroom-server --dev` with TLS on the HTTP port, serving `first`.
    static func start(_ directory: URL, _ certificate: TestCertificate, _ extra: [String] = []) async throws -> Server {
        let (process, port) = try await ClientHarness.offPool {
            try ServerProcess.dev(["--tls-cert", certificate.certificatePath, "--tls-key", certificate.keyPath] + extra)
        }
        return Server(process: process, port: port, directory: directory)
    }

    /// A client configuration that trusts `certificate` and nothing else.
    static func trusting(_ certificate: TestCertificate) throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificate.certificatePath))
        return tls
    }

    static func httpClient(trusting certificate: TestCertificate) throws -> HTTPClient {
        HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: try trusting(certificate)))
    }

    /// GET `path` with the dev credentials: the status and the body.
    static func get(_ client: HTTPClient, _ server: Server, _ path: String) async throws -> (Int, String) {
        var request = HTTPClientRequest(url: "https://127.0.0.1:\(server.port)\(path)")
        request.headers.add(name: "Authorization", value: "Basic " + Data("devkey:devsecret".utf8).base64EncodedString())
        let response = try await client.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: body))
    }

    /// An SDK participant joining over `wss://`, trusting `certificate`.
    static func join(_ server: Server, _ identity: String, trusting certificate: TestCertificate) async throws -> RecordedRoom {
        let token = try await ClientHarness.offPool { try ServerProcess.devToken(identity: identity) }
        var options = ConnectOptions(token: token, roomName: "tls-room")
        options.delegateQueue = DispatchQueue(label: "test.delegate.\(identity)")
        options.mediaBindHost = "127.0.0.1"
        options.tlsConfiguration = try trusting(certificate)
        let room = RecordedRoom(Room.connect(to: server.url, options: options))
        try await room.wait(for: "\(identity) joined over wss") { $0.name == "connected" }
        return room
    }

    /// The server's figure for `vroom_tls_handshakes_failed_total{reason}`.
    static func handshakeFailures(_ client: HTTPClient, _ server: Server, reason: String) async throws -> Double {
        let (_, metrics) = try await get(client, server, "/metrics")
        let prefix = #"vroom_tls_handshakes_failed_total{reason="\#(reason)"} "#
        let line = metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }
        return line.flatMap { Double($0.dropFirst(prefix.count)) } ?? -1
    }

    @Test func httpsRESTAndAnSDKJoinOverWSSWork() async throws {
        let directory = try Self.temporaryDirectory()
        let certificate = try TestCertificate.make(commonName: "localhost", in: directory)
        let server = try await Self.start(directory, certificate)
        defer { server.stop() }
        let client = try Self.httpClient(trusting: certificate)
        defer { Task { [client] in try? await client.shutdown() } }

        let (health, body) = try await Self.get(client, server, "/healthz")
        #expect(health == 200)
        #expect(body.contains(#""status":"ok""#), "\(body)")
        let (rooms, list) = try await Self.get(client, server, "/v1/Rooms")
        #expect(rooms == 200)
        #expect(list.contains(#""rooms""#), "\(list)")
        // Absolute URLs name the address the request came to, scheme included.
        #expect(list.contains(#""url":"https://127.0.0.1:\#(server.port)/v1/Rooms"#), "\(list)")

        let alice = try await Self.join(server, "alice", trusting: certificate)
        #expect(alice.room.signalingURL?.scheme == "wss")
        #expect(alice.room.sid?.hasPrefix("RM") == true)
        alice.room.disconnect()

        // The certificate is really checked: a client that trusts only the system's roots is refused.
        let untrusting = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { Task { [untrusting] in try? await untrusting.shutdown() } }
        await #expect(throws: (any Error).self) {
            _ = try await untrusting.execute(HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/healthz"), timeout: .seconds(3))
        }
    }

    @Test func plainHTTPToTheTLSPortIsClosedAndTheServerKeepsServing() async throws {
        let directory = try Self.temporaryDirectory()
        let certificate = try TestCertificate.make(commonName: "localhost", in: directory)
        let server = try await Self.start(directory, certificate)
        defer { server.stop() }

        let (bytes, closed) = try await ClientHarness.offPool {
            let connection = try RawTCPConnection(port: server.port)
            try connection.send(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            return connection.readUntilClosed(seconds: 5)
        }
        #expect(closed, "the server kept a plain-HTTP connection open")
        // Nothing but a TLS alert record (0x15) at most: never an HTTP answer.
        #expect(bytes.isEmpty || bytes.first == 0x15, "\(String(decoding: bytes, as: UTF8.self))")

        let client = try Self.httpClient(trusting: certificate)
        defer { Task { [client] in try? await client.shutdown() } }
        let (health, _) = try await Self.get(client, server, "/healthz")
        #expect(health == 200)
        #expect(server.process.process.isRunning)
        #expect(try await Self.handshakeFailures(client, server, reason: "error") >= 1)
        // Counted, not logged as an error (a flood must not flood the log).
        #expect(!server.process.output.contains(" error "), "\(server.process.output)")
    }

    @Test func sighupServesTheNewCertificateAndOpenConnectionsGoOn() async throws {
        let directory = try Self.temporaryDirectory()
        let served = try TestCertificate.make(commonName: "first", in: directory)
        let renewal = try TestCertificate.make(commonName: "second", in: directory)
        let server = try await Self.start(directory, served)
        defer { server.stop() }
        #expect(try TestCertificate.presented(atPort: server.port) == "CN = first")

        // Open before the reload: alice's WSS session, and a kept-alive HTTPS
        // connection of a client that trusts only the first certificate.
        let alice = try await Self.join(server, "alice", trusting: served)
        let oldClient = try Self.httpClient(trusting: served)
        defer { Task { [oldClient] in try? await oldClient.shutdown() } }
        #expect(try await Self.get(oldClient, server, "/healthz").0 == 200)

        try renewal.install(over: served)
        kill(server.process.process.processIdentifier, SIGHUP)
        _ = try await ClientHarness.offPool { try server.process.waitFor(#"tls: SIGHUP: new connections get .*common_name=(second)"#, seconds: 10) }

        #expect(try TestCertificate.presented(atPort: server.port) == "CN = second")
        // The kept-alive connection still answers (a new one would not verify).
        #expect(try await Self.get(oldClient, server, "/healthz").0 == 200)
        // A new participant verifies the new certificate; alice, on her old
        // connection, hears of bob through it.
        let bob = try await Self.join(server, "bob", trusting: renewal)
        try await alice.wait(for: "alice hears bob over her old WSS") { $0.name == "participantConnected(bob)" }
        #expect(!alice.names.contains { $0.hasPrefix("reconnecting") } && alice.room.state == .connected)

        // A bad file on the next SIGHUP: an error in the log, the second certificate stays.
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: served.certificatePath))
        kill(server.process.process.processIdentifier, SIGHUP)
        _ = try await ClientHarness.offPool {
            try server.process.waitFor(#"tls: SIGHUP: (reload failed), keeping the previous certificate"#, seconds: 10)
        }
        #expect(try TestCertificate.presented(atPort: server.port) == "CN = second")
        #expect(server.process.process.isRunning)
        alice.room.disconnect()
        bob.room.disconnect()
    }

    @Test func handshakesThatStopHalfWayDoNotDisturbASessionAndAreTimedOut() async throws {
        let directory = try Self.temporaryDirectory()
        let certificate = try TestCertificate.make(commonName: "localhost", in: directory)
        // 8 s instead of the default 10: long enough for a join on a loaded
        // machine to finish while the flood still hangs, short for the test.
        let server = try await Self.start(directory, certificate, ["--tls-handshake-timeout", "8"])
        defer { server.stop() }
        let client = try Self.httpClient(trusting: certificate)
        defer { Task { [client] in try? await client.shutdown() } }

        let opened = ContinuousClock.now
        let flood = try await ClientHarness.offPool {
            try (0..<200).map { _ in
                let connection = try RawTCPConnection(port: server.port)
                try connection.send(RawTCPConnection.partialClientHello)
                return connection
            }
        }
        // While all 200 hang: HTTPS answers and a WSS join completes.
        #expect(try await Self.get(client, server, "/healthz").0 == 200)
        let alice = try await Self.join(server, "alice", trusting: certificate)
        let servedWhileHanging = ContinuousClock.now - opened
        #expect(servedWhileHanging < .seconds(8), "the session was served only after the flood timed out")

        // Each half-open handshake is closed by the server once the timeout passes.
        let closed = try await ClientHarness.offPool {
            // One deadline for all: 15 s after now, at least 50 ms each.
            let deadline = Date().addingTimeInterval(15)
            return flood.map { $0.readUntilClosed(seconds: max(0.05, deadline.timeIntervalSinceNow)).closed }
        }
        let waited = ContinuousClock.now - opened
        #expect(closed.filter { $0 }.count == 200, "\(closed.filter { !$0 }.count) half-open handshakes still open after \(waited)")
        #expect(waited >= .seconds(7.5), "closed before the handshake timeout: \(waited)")
        #expect(try await Self.handshakeFailures(client, server, reason: "timeout") == 200)
        #expect(alice.room.state == .connected)
        #expect(try await Self.get(client, server, "/healthz").0 == 200)
        let errorLines = server.process.output.split(separator: "\n").filter { $0.contains(" error ") }
        #expect(errorLines.isEmpty, "\(errorLines.count) error lines, the first: \(errorLines.first ?? "")")
        alice.room.disconnect()
    }

    /// `vroom-server --dev` with `arguments`, run to its exit (or killed after 30 s).
    static func runToExit(_ arguments: [String]) async throws -> (status: Int32, stderr: String) {
        try await ClientHarness.offPool {
            let server = try ServerProcess(arguments: ["--dev", "--http-port", "0", "--rtc-port", "0", "--rtc-workers", "1"] + arguments)
            guard server.waitForExit(seconds: 30) else {
                server.stop()
                return (-1, server.output)
            }
            Thread.sleep(forTimeInterval: 0.2)  // the last of stderr
            return (server.process.terminationStatus, server.output)
        }
    }

    @Test func aCertificateWithoutKeyOrAGarbagePEMStopsTheServer() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = try TestCertificate.make(commonName: "localhost", in: directory)
        let garbage = directory.appendingPathComponent("garbage.pem")
        try Data("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n".utf8).write(to: garbage)
        let other = try TestCertificate.make(commonName: "other", in: directory)

        let cases: [([String], String)] = [
            (["--tls-cert", certificate.certificatePath], "tls.key (--tls-key"),
            (["--tls-key", certificate.keyPath], "tls.cert (--tls-cert"),
            (["--tls-cert", garbage.path, "--tls-key", certificate.keyPath], "not valid PEM"),
            (["--tls-cert", certificate.certificatePath, "--tls-key", garbage.path], "cannot read the TLS key"),
            (["--tls-cert", directory.appendingPathComponent("missing.pem").path, "--tls-key", certificate.keyPath], "no such file"),
            (["--tls-cert", certificate.certificatePath, "--tls-key", other.keyPath], "does not fit the certificate"),
        ]
        for (arguments, message) in cases {
            let (status, stderr) = try await Self.runToExit(arguments)
            #expect(status == 1, "\(arguments): \(stderr)")
            let lines = stderr.split(separator: "\n")
            #expect(lines.count == 1 && stderr.contains(message), "\(arguments): \(stderr)")
        }
    }
}
}
