import AdminAPI
import Crypto
import Foundation
import Packets
import Testing
import VroomTesting

#if canImport(Glibc)
import Glibc
#endif

/// The TURN REST API's credentials (PROTOCOL.md section 9): computed as an
/// independent tool computes them, and accepted by coturn only when genuine
/// and unexpired.
@Suite struct TURNCredentialTests {
    static let participant = "PA0123456789abcdef0123456789abcdef"

    @Test func theCredentialIsBase64OfHMACSHA1OfTheUsername() {
        let turn = TURNConfiguration(urls: ["turn:127.0.0.1:3478"], secret: "vroom-turn-secret", ttl: 600)
        let credential = turn.credential(for: Self.participant, now: Date(timeIntervalSince1970: 1_699_999_400.75))
        #expect(credential.username == "1700000000:\(Self.participant)")
        #expect(credential.expiry == 1_700_000_000)
        // printf '1700000000:PA0123456789abcdef0123456789abcdef' \
        //   | openssl dgst -sha1 -hmac 'vroom-turn-secret' -binary | base64
        #expect(credential.password == "CK/JP3uWER+71MMwg/jsu4Mqcsc=")
        #expect(turn.credential(for: Self.participant, now: Date(timeIntervalSince1970: 1_699_999_400), ttl: 60).username
            == "1699999460:\(Self.participant)")
    }

    @Test(.enabled(if: Coturn.binary != nil, "turnserver (coturn) is not installed; scripts/bootstrap.sh installs it"))
    func coturnAcceptsAGoodCredentialAndRefusesForgedAndExpiredOnes() throws {
        let secret = "coturn-test-\(UUID().uuidString)"
        let coturn = try Coturn(secret: secret)
        defer { coturn.stop() }
        let turn = TURNConfiguration(urls: ["turn:127.0.0.1:\(coturn.port)"], secret: secret, ttl: 600)

        let good = turn.credential(for: Self.participant, now: Date())
        #expect(try coturn.allocate(username: good.username, password: good.password) == .allocated, "\(coturn.log())")

        // The same username, a credential made with another secret.
        let forged = TURNConfiguration.password(secret: secret + "x", username: good.username)
        #expect(try coturn.allocate(username: good.username, password: forged) == .refused(401))

        // A genuine credential whose expiry has passed.
        let expired = turn.credential(for: Self.participant, now: Date(timeIntervalSinceNow: -700))
        #expect(expired.expiry < Int(Date().timeIntervalSince1970))
        #expect(try coturn.allocate(username: expired.username, password: expired.password) == .refused(401))

        // And the good one still works after the refusals.
        #expect(try coturn.allocate(username: good.username, password: good.password) == .allocated)
    }
}

/// coturn's `turnserver` on 127.0.0.1 with the TURN REST API's shared
/// secret (`use-auth-secret`), UDP only, and a TURN Allocate client of the
/// long-term credential mechanism (RFC 8656 section 7.2, RFC 8489 section
/// 9.2) built from Packets' STUN writer and view.
final class Coturn {
    static let binary: String? = ["/usr/bin/turnserver", "/usr/local/bin/turnserver"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    enum Outcome: Equatable {
        case allocated
        case refused(Int)
    }

    let port: UInt16
    private var pid: pid_t = 0
    private let output: URL
    private let directory: URL

    /// Spawned with posix_spawn and an empty signal mask, not Foundation's
    /// `Process`: that passes on the test thread's mask, and a turnserver
    /// started with most signals blocked never answered (nor left on SIGTERM).
    init(secret: String) throws {
        let binary = try #require(Self.binary)
        port = try Self.freeUDPPort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vroom-coturn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        output = directory.appendingPathComponent("turnserver.log")
        // Relays in a random band of 100 ports, so parallel runs rarely meet.
        let relayBase = Int.random(in: 50_000...59_800)
        let command = [
            binary, "--use-auth-secret", "--static-auth-secret=\(secret)", "--realm=vroom",
            "--listening-ip=127.0.0.1", "--relay-ip=127.0.0.1", "--listening-port=\(port)",
            "--min-port=\(relayBase)", "--max-port=\(relayBase + 99)",
            "--no-tls", "--no-dtls", "--no-tcp", "--no-cli", "--log-file=stdout", "--simple-log",
            "--pidfile=\(directory.appendingPathComponent("turnserver.pid").path)",
            "--db=\(directory.appendingPathComponent("turndb").path)",
        ]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let spawned = posix_spawn(&pid, binary, &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw CoturnError.notReady("posix_spawn: \(String(cString: strerror(spawned)))") }
        // Ready when it answers an unauthenticated Allocate (401 with a nonce).
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline {
            let socket = try TURNSocket(port: port, timeout: 0.2)
            if (try? socket.exchange(Self.allocateRequest(credentials: nil))) != nil { return }
        }
        stop()
        throw CoturnError.notReady(log())
    }

    func stop() {
        if pid > 0 {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            pid = 0
        }
        try? FileManager.default.removeItem(at: directory)
    }

    func log() -> String {
        (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }

    /// A fresh 5-tuple each time (an allocation is per client address): an
    /// Allocate without credentials for REALM and NONCE, then one with
    /// USERNAME, REALM, NONCE and MESSAGE-INTEGRITY keyed with
    /// MD5(username:realm:password).
    func allocate(username: String, password: String) throws -> Outcome {
        let socket = try TURNSocket(port: port, timeout: 2)
        let challenge = try socket.exchange(Self.allocateRequest(credentials: nil))
        let (realm, nonce) = try challenge.withUnsafeBytes { raw in
            let view = try STUNMessageView(validating: raw)
            #expect(view.errorCode?.code == 401)
            return ([UInt8](try #require(view.realm)), [UInt8](try #require(view.nonce)))
        }
        let key = Array(Insecure.MD5.hash(data: Array("\(username):".utf8) + realm + Array(":\(password)".utf8)))
        let answer = try socket.exchange(
            Self.allocateRequest(credentials: (username: username, realm: realm, nonce: nonce, key: key)))
        return try answer.withUnsafeBytes { raw in
            let view = try STUNMessageView(validating: raw)
            switch view.messageType.messageClass {
            case .successResponse: return .allocated
            default: return .refused(view.errorCode?.code ?? 0)
            }
        }
    }

    static let allocate = STUNMethod(rawValue: 0x003)
    static let requestedTransport = STUNAttributeType(0x0019)

    static func allocateRequest(credentials: (username: String, realm: [UInt8], nonce: [UInt8], key: [UInt8])?) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let length = try buffer.withUnsafeMutableBytes { raw in
            var writer = try STUNMessageWriter(
                buffer: raw, type: STUNMessageType(method: allocate, messageClass: .request), transactionID: .random())
            try writer.append(type: requestedTransport, bytes: [17, 0, 0, 0])  // UDP
            if let credentials {
                try writer.appendUsername(credentials.username)
                try writer.append(type: .realm, bytes: credentials.realm)
                try writer.append(type: .nonce, bytes: credentials.nonce)
                try credentials.key.withUnsafeBytes { key in try writer.appendMessageIntegrity(key: key) }
            }
            return writer.finish()
        }
        return Array(buffer.prefix(length))
    }

    static func freeUDPPort() throws -> UInt16 {
        let socket = try TURNSocket(port: 0, timeout: 0.1, bind: true)
        return socket.localPort
    }
}

enum CoturnError: Error {
    case notReady(String)
    case socket(String)
    case timeout
}

/// A UDP socket on 127.0.0.1 that sends to `port` and waits for one answer.
final class TURNSocket {
    let fd: Int32
    let port: UInt16

    init(port: UInt16, timeout: Double, bind shouldBind: Bool = false) throws {
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw CoturnError.socket("socket: \(errno)") }
        self.port = port
        var time = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        if shouldBind {
            var address = sockaddr_in.loopback(port: port)
            let status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard status == 0 else { throw CoturnError.socket("bind: \(errno)") }
        }
    }

    deinit { close(fd) }

    var localPort: UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Sends `request` and returns the first datagram that comes back.
    func exchange(_ request: [UInt8]) throws -> [UInt8] {
        var address = sockaddr_in.loopback(port: port)
        let sent = request.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard sent == request.count else { throw CoturnError.socket("sendto: \(errno)") }
        var buffer = [UInt8](repeating: 0, count: 2048)
        let received = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard received > 0 else { throw CoturnError.timeout }
        return Array(buffer.prefix(received))
    }
}
