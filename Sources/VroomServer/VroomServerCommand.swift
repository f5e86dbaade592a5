import AccessTokens
import AdminAPI
import ArgumentParser
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import MediaIO
import Node
import Persistence
import Rooms
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

    @Option(help: "TCP port for HTTP: REST, signaling, demo page, /healthz, /metrics.")
    var httpPort: UInt16?

    @Flag(help: "Require the API key and secret (HTTP Basic) for GET /metrics.")
    var metricsAuth = false

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

    @Option(help: "SQLite file for room and participant history.")
    var db: String?

    @Flag(inversion: .prefixedNo, help: "Create a room when a join names an unknown one (default on).")
    var autoCreate: Bool?

    @Option(help: "Participants this node takes before answering 53006.")
    var maxParticipantsPerNode: Int?

    @Option(help: "Seconds a dropped participant may resume (PROTOCOL.md 3.6).")
    var reconnectWindow: Double?

    @Option(help: "Seconds without a client frame before 53002.")
    var silenceTimeout: Double?

    @Option(help: "Seconds after the last valid ICE check before media stops and the participant gets 53405 (RFC 7675).")
    var consentTimeout: Double?

    @Option(help: "Seconds an ad-hoc room stays open once empty.")
    var emptyRoomTimeout: Double?

    @Option(help: "Seconds an ad-hoc room waits for its first participant.")
    var unusedRoomTimeout: Double?

    @Option(help: "Seconds before an unanswered subscriber offer is sent again.")
    var offerResend: Double?

    @Option(help: "Seconds of the message rate window (10 messages per window).")
    var messageRateWindow: Double?

    @Option(help: "Seconds before a failed status callback is retried (doubles after each failure).")
    var webhookRetryBase: Double?

    @Option(help: "Longest wait in seconds between two attempts of a status callback.")
    var webhookRetryMax: Double?

    @Option(help: "Base URL of the REST API's absolute links, e.g. https://video.example.com (default: the request's Host).")
    var publicURL: String?

    @Option(help: "account_sid shown in REST resources (AC + 32 hex; default: derived from the API key).")
    var accountSID: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String?

    func resolvedConfiguration() throws -> ServerConfiguration {
        var c = try config.map(ServerConfiguration.load(path:)) ?? ServerConfiguration()
        let env = ProcessInfo.processInfo.environment
        if let key = env["VROOM_API_KEY"] { c.apiKey = key }
        if let secret = env["VROOM_API_SECRET"] { c.apiSecret = secret }
        if dev { c.dev = true }
        if let httpPort { c.http.port = httpPort }
        if metricsAuth { c.http.metricsAuth = true }
        if let rtcPort { c.rtc.port = rtcPort }
        if let rtcWorkers { c.rtc.workers = rtcWorkers }
        if !announceIP.isEmpty { c.rtc.announceIPs = announceIP }
        if let apiKey { c.apiKey = apiKey }
        if let apiSecret { c.apiSecret = apiSecret }
        if let logLevel { c.logLevel = logLevel }
        if let publicURL { c.publicURL = publicURL }
        if let accountSID { c.accountSID = accountSID }
        if let db { c.db = db }
        if let autoCreate { c.rooms.autoCreate = autoCreate }
        if let maxParticipantsPerNode { c.rooms.maxParticipantsPerNode = maxParticipantsPerNode }
        if let reconnectWindow { c.rooms.reconnectWindowSeconds = reconnectWindow }
        if let silenceTimeout { c.signaling.silenceTimeoutSeconds = silenceTimeout }
        if let consentTimeout { c.rtc.consentTimeoutSeconds = consentTimeout }
        if let offerResend { c.signaling.offerResendSeconds = offerResend }
        if let emptyRoomTimeout { c.rooms.emptyRoomTimeoutSeconds = emptyRoomTimeout }
        if let unusedRoomTimeout { c.rooms.unusedRoomTimeoutSeconds = unusedRoomTimeout }
        if let messageRateWindow { c.rooms.messageRateWindowSeconds = messageRateWindow }
        if let webhookRetryBase {
            c.webhooks.retryBaseSeconds = webhookRetryBase
            c.webhooks.retryMaxSeconds = max(c.webhooks.retryMaxSeconds, webhookRetryBase)
        }
        if let webhookRetryMax { c.webhooks.retryMaxSeconds = webhookRetryMax }
        if c.dev {
            c.http.address = "127.0.0.1"
            c.rtc.address = "127.0.0.1"
            if c.rtc.announceIPs.isEmpty { c.rtc.announceIPs = ["127.0.0.1"] }
            if c.apiKey == nil { c.apiKey = "devkey" }
            if c.apiSecret == nil { c.apiSecret = "devsecret" }
        }
        guard c.webhooks.retryBaseSeconds > 0, c.webhooks.retryMaxSeconds >= c.webhooks.retryBaseSeconds else {
            throw ValidationError("--webhook-retry-base must be positive and at most --webhook-retry-max")
        }
        guard c.rtc.workers >= 1 else { throw ValidationError("--rtc-workers must be at least 1") }
        if let sid = c.accountSID, sid.count != 34 || !sid.hasPrefix("AC") || !sid.dropFirst(2).allSatisfy(\.isHexDigit) {
            throw ValidationError("--account-sid must be AC followed by 32 hex digits")
        }
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
        // Media events reach the participants' sessions through the room
        // host; the workers only enqueue (10k: far more than a node's
        // participants can fail at once, and 10 s of one quality event a
        // second from each of 1,000 participants).
        let (mediaEvents, mediaEventInput) = AsyncStream.makeStream(of: MediaEvent.self, bufferingPolicy: .bufferingNewest(10_000))
        let announced = configuration.rtc.announceIPs.isEmpty ? InterfaceAddresses.defaultAnnounced() : configuration.rtc.announceIPs
        let plane = try MediaPlane(
            configuration: MediaConfiguration(
                bindAddress: configuration.rtc.address, basePort: configuration.rtc.port, workers: configuration.rtc.workers,
                announcedAddresses: announced, consentTimeoutSeconds: configuration.rtc.consentTimeoutSeconds),
            logger: Logger(label: "vroom.media"), events: { mediaEventInput.yield($0) })
        plane.start()
        let media = RoomMedia(plane: plane)
        logger.info("media: \(media.ports.count) worker(s) on UDP \(configuration.rtc.address) ports \(media.ports.map(String.init).joined(separator: ",")), announcing \(announced.joined(separator: ","))")

        let rtcPorts = media.ports.map(Int.init)
        guard let apiKey = configuration.apiKey, let apiSecret = configuration.apiSecret else {
            throw ValidationError("an API key and secret are required")
        }

        // History first: rooms in progress at the last stop read `failed` now.
        let history = try HistoryStore(path: configuration.db)
        let interrupted = try await history.markInterrupted(now: Date())
        if !interrupted.roomSids.isEmpty {
            logger.notice("\(interrupted.roomSids.count) room(s) in progress at the last stop marked failed")
        }
        let webhooks = WebhookOutbox(configuration: configuration.webhookOutbox(apiSecret: apiSecret), logger: Logger(label: "vroom.webhooks"))
        let messageSubscriptions = MessageSubscriptions()
        let recorder = RoomEventRecorder(
            history: history, webhooks: webhooks, messageSubscriptions: messageSubscriptions,
            logger: Logger(label: "vroom.history"))
        let node = Node(configuration: configuration.roomService, media: media, eventSink: { events in
            recorder.enqueue(events)
        })
        let host = node.rooms
        // Failures, network quality and dominant speaker reach the sessions
        // through the node (Node.handle).
        let mediaFailures = Task {
            for await event in mediaEvents {
                if let line = await node.handle(event) { logger.info("\(line)") }
            }
        }
        let metrics = NodeMetrics()
        let signaling = SignalingEndpoint(
            node: node, verifier: AccessTokenVerifier(keys: [apiKey: apiSecret]),
            settings: configuration.signalingSettings, metrics: metrics.signaling)

        let router = Router(context: SignalingRequestContext.self)
        // 503 at the node's participant limit, where a join would get 53006.
        let nodeLimit = configuration.rooms.maxParticipantsPerNode
        router.addHealthRoute {
            let participants = await host.read { $0.participantCount }
            let full = nodeLimit.map { participants >= $0 } ?? false
            return HealthStatus(status: full ? .atCapacity : .ok, rtcPorts: rtcPorts)
        }
        router.addDemoPageRoute()
        router.addMetricsRoute(
            metrics, access: configuration.http.metricsAuth ? .basic(apiKey: apiKey, apiSecret: apiSecret) : .open
        ) {
            await NodeSnapshot.read(host: host, media: media, webhooks: webhooks)
        }
        signaling.register(on: router)
        AdminRoutes(
            host: host, history: history,
            configuration: AdminConfiguration(
                apiKey: apiKey, apiSecret: apiSecret, accountSID: configuration.accountSID,
                publicURL: configuration.publicURL),
            messageSubscriptions: messageSubscriptions, media: media
        ).register(on: router)
        let address = configuration.http.address
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(webSocketRouter: router, configuration: .init(ws: signaling.webSocketConfiguration)),
            configuration: .init(address: .hostname(address, port: Int(configuration.http.port)), serverName: "vroom"),
            onServerRunning: { channel in
                logger.info("http: listening on \(address):\(channel.localAddress?.port ?? 0)")
            },
            logger: Logger(label: "vroom.http"))
        let recording = Task { await recorder.run() }
        // SIGTERM (systemd, docker stop) and SIGINT shut down gracefully, status 0.
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
        recorder.finish()
        await recording.value
        mediaEventInput.finish()
        await mediaFailures.value
        let totals = await plane.statistics()
        logger.info("media totals: \(totals)")
        await plane.stop()
        await webhooks.shutdown()
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
