import AdminAPI
import ArgumentParser
import Foundation
import Hummingbird
import Logging
import MediaIO
import Signaling

// Async at the root: `serve` runs the HTTP server and `token` signs with
// jwt-kit's async API.
@main
struct VroomServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vroom-server",
        abstract: "Vroom room server and SFU.",
        subcommands: [Serve.self, CheckConfig.self, Token.self],
        defaultSubcommand: Serve.self
    )
}

/// The settings every subcommand that starts or checks a server shares.
struct ServerOptions: ParsableArguments {
    @Flag(help: "Development mode: loopback only, API key devkey / devsecret.")
    var dev = false

    @Option(help: "JSON config file (see deploy/vroom.json).")
    var config: String?

    @Option(help: "TCP port for HTTP: REST, signaling, demo page, /healthz.")
    var httpPort: UInt16?

    @Option(help: "UDP port of media worker 0 (worker k uses port+k); 0 picks free ports.")
    var rtcPort: UInt16?

    @Option(help: "Number of media workers (threads and UDP ports).")
    var rtcWorkers: Int?

    @Option(help: "Address to put in ICE candidates (repeatable).")
    var announceIP: [String] = []

    @Option(help: "API key (also VROOM_API_KEY).")
    var apiKey: String?

    @Option(help: "API secret (also VROOM_API_SECRET).")
    var apiSecret: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String?

    func resolvedConfiguration() throws -> ServerConfiguration {
        var c = try config.map(ServerConfiguration.load(path:)) ?? ServerConfiguration()
        let env = ProcessInfo.processInfo.environment
        if let key = env["VROOM_API_KEY"] { c.apiKey = key }
        if let secret = env["VROOM_API_SECRET"] { c.apiSecret = secret }
        if dev { c.dev = true }
        if let httpPort { c.http.port = httpPort }
        if let rtcPort { c.rtc.port = rtcPort }
        if let rtcWorkers { c.rtc.workers = rtcWorkers }
        if !announceIP.isEmpty { c.rtc.announceIPs = announceIP }
        if let apiKey { c.apiKey = apiKey }
        if let apiSecret { c.apiSecret = apiSecret }
        if let logLevel { c.logLevel = logLevel }
        if c.dev {
            c.http.address = "127.0.0.1"
            c.rtc.address = "127.0.0.1"
            if c.rtc.announceIPs.isEmpty { c.rtc.announceIPs = ["127.0.0.1"] }
            if c.apiKey == nil { c.apiKey = "devkey" }
            if c.apiSecret == nil { c.apiSecret = "devsecret" }
        }
        guard c.rtc.workers >= 1 else { throw ValidationError("--rtc-workers must be at least 1") }
        guard c.apiKey != nil, c.apiSecret != nil else {
            throw ValidationError("an API key and secret are required (--api-key/--api-secret, VROOM_API_KEY/VROOM_API_SECRET), or use --dev")
        }
        return c
    }
}

/// Loads and validates the configuration as `serve` would, prints it (secret
/// masked) and exits: for deploy scripts and the sample config's test.
struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config", abstract: "Validate the configuration and print it.")

    @OptionGroup var options: ServerOptions

    func run() throws {
        var c = try options.resolvedConfiguration()
        c.apiSecret = c.apiSecret.map { _ in "********" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(c), as: UTF8.self))
    }
}

/// Prints an access token signed with the configured API key (PROTOCOL.md
/// section 2), for people and test scripts:
/// `vroom-server token --dev --identity alice --room standup --ttl 3600`.
struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print an access token signed with the configured API key.")

    @OptionGroup var options: ServerOptions

    @Option(help: "The participant identity (grants.identity).")
    var identity: String

    @Option(help: "Allow only this room (unique name or RM… SID); default: any room.")
    var room: String?

    @Option(help: "Lifetime in seconds.")
    var ttl: Int = 3600

    func validate() throws {
        guard ttl > 0 else { throw ValidationError("--ttl must be positive") }
    }

    func run() async throws {
        let configuration = try options.resolvedConfiguration()
        // resolvedConfiguration() guarantees both; the guard keeps this total.
        guard let apiKey = configuration.apiKey, let apiSecret = configuration.apiSecret else {
            throw ValidationError("an API key and secret are required")
        }
        let issuer = AccessTokenIssuer(apiKey: apiKey, apiSecret: apiSecret)
        print(try await issuer.sign(identity: identity, room: room, ttl: TimeInterval(ttl)))
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the server (the default).")

    @OptionGroup var options: ServerOptions

    func run() async throws {
        let configuration = try options.resolvedConfiguration()
        unblockTerminationSignals()
        let level = Logger.Level(rawValue: configuration.logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "vroom.server")
        if configuration.dev {
            logger.warning("DEVELOPMENT MODE: listening on 127.0.0.1 only, API key 'devkey', secret 'devsecret'. Never use --dev in production.")
        }
        let media = try MediaListener(
            address: configuration.rtc.address, basePort: configuration.rtc.port, workers: configuration.rtc.workers)
        media.start(logger: Logger(label: "vroom.media"))
        defer { media.stop() }
        logger.info("media: \(media.ports.count) worker(s) on UDP \(configuration.rtc.address) ports \(media.ports.map(String.init).joined(separator: ","))")

        let rtcPorts = media.ports.map(Int.init)
        let router = Router()
        router.addHealthRoute { HealthStatus(status: .ok, rtcPorts: rtcPorts) }
        let address = configuration.http.address
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(address, port: Int(configuration.http.port)), serverName: "vroom"),
            onServerRunning: { channel in
                logger.info("http: listening on \(address):\(channel.localAddress?.port ?? 0)")
            },
            logger: Logger(label: "vroom.http"))
        // SIGTERM (systemd, docker stop) and SIGINT shut down gracefully, status 0.
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
        logger.info("stopped")
    }
}

/// A parent may spawn us with SIGTERM and SIGINT blocked (Foundation's
/// Process passes on its thread's signal mask); unblock them so the graceful
/// shutdown handlers can see them.
func unblockTerminationSignals() {
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGTERM)
    sigaddset(&signals, SIGINT)
    pthread_sigmask(SIG_UNBLOCK, &signals, nil)
}
