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
import ServiceLifecycle
import Signaling
import UnixSignals

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

/// Loads and validates the configuration as `serve` would, prints it (secret
/// masked) and exits: for deploy scripts and the sample config's test.
struct CheckConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config", abstract: "Validate the configuration and print it.")

    @OptionGroup var options: ServerOptions

    func run() async throws {
        var c = try await options.resolvedConfiguration()
        c.apiSecret = c.apiSecret.map { _ in "********" }
        c.turn.secret = c.turn.secret.map { _ in "********" }
        // A cluster member's URL as the node registers it, given or not.
        if c.isCluster { c.nodeURL = c.resolvedNodeURL }
        c.db = PostgresDatabase.masked(c.db)  // a postgres:// URL's password
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
        let configuration = try await options.resolvedConfiguration()
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
        let configuration = try await options.resolvedConfiguration()
        // The PEM files before anything starts: one that cannot serve exits 1.
        let tls = try TLSFrontEnd.load(configuration.tls)
        unblockTerminationSignals()
        let level = configuration.logLevel
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
        let announced = configuration.rtc.announceIPs.isEmpty
            ? InterfaceAddresses.defaultAnnounced(bindAddress: configuration.rtc.address) : configuration.rtc.announceIPs
        let plane = try MediaPlane(
            configuration: MediaConfiguration(
                bindAddress: configuration.rtc.address, basePort: configuration.rtc.port, workers: configuration.rtc.workers,
                announcedAddresses: announced, consentTimeoutSeconds: configuration.rtc.consentTimeoutSeconds,
                iceTCP: ICETCPConfiguration(enabled: configuration.rtc.iceTcp), spreadRoomAfter: configuration.rtc.spreadRoomAfter),
            logger: Logger(label: "vroom.media"), events: { mediaEventInput.yield($0) })
        plane.start()
        let media = RoomMedia(plane: plane)
        logger.info("media: \(media.ports.count) worker(s) on UDP \(configuration.rtc.address) ports \(media.ports.map(String.init).joined(separator: ",")), announcing \(announced.joined(separator: ","))\(configuration.rtc.iceTcp ? "; ICE-TCP on the same ports" : "")")

        let rtcPorts = media.ports.map(Int.init)
        guard let apiKey = configuration.apiKey, let apiSecret = configuration.apiSecret else {
            throw ValidationError("an API key and secret are required")
        }

        // The store first. One node alone (SQLite): rooms in progress at the
        // last stop end `failed` below, before the node takes anyone. A
        // cluster member (PostgreSQL): the rooms of a node that stopped are a
        // dead node's, resumed elsewhere or ended by the cluster (PROTOCOL.md
        // section 8).
        let history: any HistoryStore
        var database: PostgresDatabase?
        var interrupted: InterruptedRooms?
        if configuration.isCluster {
            // postgres-nio logs each failed connection attempt at info: only its warnings.
            var databaseLogger = Logger(label: "vroom.db")
            databaseLogger.logLevel = max(level, .warning)
            let connected = try await PostgresDatabase.connect(url: configuration.db, logger: databaseLogger)
            let schema = try await connected.appliedMigrations().last ?? 0
            logger.info("cluster: database \(connected.displayURL), schema version \(schema)")
            history = PostgresHistoryStore(database: connected)
            database = connected
        } else {
            let sqlite = try SQLiteHistoryStore(path: configuration.db)
            interrupted = try await InterruptedRooms(store: sqlite)
            history = sqlite
        }
        // A cluster member places rooms through the database; the node's
        // load comes from its room host, made below (hence the box).
        let hostBox = LateBox<RoomHost>()
        if database != nil, configuration.nodeURLIsWildcard {
            logger.warning(
                "cluster: this node's URL is \(configuration.resolvedNodeURL), which only this machine can reach: give --node-url (or --public-url or --announce-ip)")
        }
        let cluster = database.map { database in
            ClusterNode(
                url: configuration.resolvedNodeURL, database: database, history: history,
                reconnectWindowSeconds: configuration.rooms.reconnectWindowSeconds, logger: Logger(label: "vroom.cluster")
            ) {
                guard let host = hostBox.value else { return (0, 0) }
                return await host.read { ($0.participantCount, $0.inProgressRoomCount) }
            } hosts: { room in
                guard let host = hostBox.value else { return false }
                return await host.read { $0.roomRecord(room)?.status == .inProgress }
            } adopt: { snapshot in
                do throws(RoomError) {
                    try await hostBox.value?.perform { (service: inout RoomService, now) throws(RoomError) in
                        try service.adopt(snapshot, now: now)
                    }
                    logger.notice("cluster: took over room \(snapshot.room.uniqueName) (\(snapshot.room.sid.rawValue)) placed here")
                } catch {
                    logger.warning("cluster: cannot take over room \(snapshot.room.uniqueName): \(error)")
                }
            } fail: { snapshot in
                do throws(RoomError) {
                    try await hostBox.value?.perform { (service: inout RoomService, now) throws(RoomError) in
                        try service.fail(snapshot, now: now)
                    }
                } catch {
                    logger.warning("cluster: cannot end room \(snapshot.room.uniqueName) of a dead node: \(error)")
                }
            }
        }
        // Callbacks: in memory on one node; in the database in a cluster,
        // where any node delivers them (PROTOCOL.md section 8).
        let webhookConfiguration = configuration.webhookOutbox(apiSecret: apiSecret)
        let webhooks: any CallbackOutbox
        let messageSubscriptions: any MessageSubscriptionList
        if let database, let cluster {
            webhooks = DatabaseWebhookOutbox(
                configuration: webhookConfiguration, database: database, nodeID: cluster.id,
                logger: Logger(label: "vroom.webhooks"))
            messageSubscriptions = DatabaseMessageSubscriptions(database: database)
        } else {
            webhooks = WebhookOutbox(
                configuration: webhookConfiguration, sequenceNumbers: interrupted?.callbackSequenceNumbers ?? [:],
                logger: Logger(label: "vroom.webhooks"))
            messageSubscriptions = MessageSubscriptions()
        }
        let recorder = RoomEventRecorder(
            history: history, webhooks: webhooks, messageSubscriptions: messageSubscriptions,
            logger: Logger(label: "vroom.history"))
        let node = Node(
            configuration: configuration.roomService, media: media,
            placement: cluster ?? SingleNodePlacement(),
            eventSink: { events in
                recorder.enqueue(events)
                cluster?.handle(events)
            })
        let host = node.rooms
        hostBox.value = host
        try await interrupted?.end(on: host, logger: logger)
        if let cluster {
            try? await cluster.heartbeat()
            logger.info("cluster: node \(cluster.id) at \(cluster.url)")
        }
        let heartbeats = cluster.map { cluster in Task { await cluster.run() } }
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

        let drain = NodeDrain(
            timeout: .milliseconds(Int64(configuration.shutdown.drainTimeoutSeconds * 1000)),
            logger: Logger(label: "vroom.drain"), participants: { await host.read { $0.participantCount } },
            started: { await cluster?.startDraining() },
            moveRooms: {
                // A cluster member hands each room to another node (PROTOCOL.md section 8).
                guard let cluster else { return 0 }
                let rooms = await host.read { $0.allRooms().filter { $0.status == .inProgress } }
                var total = 0
                for room in rooms {
                    guard await cluster.anotherNodeCanTakeRooms() else {
                        logger.warning("drain: no node can take room \(room.uniqueName); it ends with this node")
                        continue
                    }
                    let (moved, destination) = await node.moveRoom(room.sid) {
                        await recorder.callbacksWritten(within: .seconds(2))
                        return await cluster.move(uniqueName: room.uniqueName)
                    }
                    total += moved
                    logger.notice("drain: room \(room.uniqueName) moved to \(destination ?? "nowhere") with \(moved) participant(s)")
                }
                return total
            })
        let router = Router(context: BasicRequestContext.self)
        // Not ready while draining, nor at the node's participant limit, where a join would get 53006.
        let nodeLimit = configuration.rooms.maxParticipantsPerNode
        router.addHealthRoutes(rtcPorts: rtcPorts) {
            if drain.isDraining || cluster?.isDraining == true { return .draining }
            let participants = await host.read { $0.participantCount }
            return nodeLimit.map { participants >= $0 } ?? false ? .full : .ok
        }
        router.addWebPageRoutes(try WebPages(), dev: configuration.dev)
        if configuration.dev {
            router.addDevTokenRoute(issuer: AccessTokenIssuer(apiKey: apiKey, apiSecret: apiSecret))
        }
        router.addMetricsRoute(
            metrics, access: configuration.http.metricsAuth ? .basic(apiKey: apiKey, apiSecret: apiSecret) : .open
        ) {
            await NodeSnapshot.read(host: host, media: media, webhooks: webhooks)
        }
        signaling.register(on: router)
        // POST /v1/Node/Drain: the same graceful shutdown as SIGTERM.
        let groupBox = LateBox<ServiceGroup>()
        NodeRoutes(apiKey: apiKey, apiSecret: apiSecret) {
            logger.notice("drain requested through POST /v1/Node/Drain")
            await groupBox.value?.triggerGracefulShutdown()
        }.register(on: router)
        let admin = AdminRoutes(
            host: host, history: history,
            configuration: AdminConfiguration(
                apiKey: apiKey, apiSecret: apiSecret, accountSID: configuration.accountSID,
                publicURL: configuration.publicURL, scheme: tls == nil ? "http" : "https",
                turn: configuration.turnConfiguration),
            messageSubscriptions: messageSubscriptions, media: media, placement: node.placement, relay: cluster
        )
        admin.register(on: router)
        // REST actions other nodes carry here for the rooms this node hosts.
        let relayedActions = cluster.map { cluster in
            Task { await cluster.serveRelayedActions { await admin.answerRelayed($0) } }
        }
        let address = configuration.http.address
        let app = Application(
            router: router,
            server: tls?.httpServer(signaling, metrics: metrics) ?? signaling.httpServer,
            configuration: .init(address: .hostname(address, port: Int(configuration.http.port)), serverName: "vroom"),
            onServerRunning: { channel in
                logger.info("http: listening on \(ServerConfiguration.urlHost(address)):\(channel.localAddress?.port ?? 0)")
            },
            logger: Logger(label: "vroom.http"))
        let reloader = await tls?.reloader(logger: Logger(label: "vroom.tls"))
        if let tls {
            logger.info("tls: HTTPS and WSS with \(tls.certificates.leafSummary); SIGHUP rereads the files")
        }
        let recording = Task { await recorder.run() }
        // The group stops its services last to first: the drain first (the
        // node reads `draining` while its rooms finish), then the HTTP server.
        // The SIGHUP reloader (with TLS) first, so it stops last.
        var members: [any Service] = [app, drain]
        if let reloader { members.insert(reloader, at: 0) }
        let services = ServiceGroup(configuration: .init(services: members, logger: logger))
        groupBox.value = services
        // SIGTERM (systemd, docker stop) and SIGINT shut down gracefully,
        // status 0 (a drain already begun by POST /v1/Node/Drain goes on);
        // a second one stops the wait for the rooms.
        // Trapped here rather than by the group, which reads only the first.
        let terminations = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let terminationWatch = Task {
            var first = true
            for await signal in terminations {
                if first {
                    first = false
                    logger.notice("\(signal): draining (send it again to stop waiting for the rooms)")
                    await services.triggerGracefulShutdown()
                } else {
                    // Sticky: a second signal before the drain began still counts.
                    logger.notice("\(signal) again: not waiting for the rooms any more")
                    drain.stopWaiting()
                }
            }
        }
        try await services.run()
        terminationWatch.cancel()
        heartbeats?.cancel()
        relayedActions?.cancel()
        // One node alone: what is still in progress ends now, `failed`, with
        // its callbacks (delivered in the outbox's grace period below),
        // rather than at the next start, if there is one.
        if cluster == nil { await InterruptedRooms.end(inProgressOn: host, logger: logger) }
        recorder.finish()
        await recording.value
        mediaEventInput.finish()
        await mediaFailures.value
        let totals = await plane.statistics()
        logger.info("media totals: \(totals)")
        await plane.stop()
        // Status callbacks written with their records reach the outbox's
        // table (in a cluster) or the outbox (one node) first, so this node
        // still delivers them in its grace period.
        await recorder.callbacksWritten(within: .seconds(5))
        await webhooks.shutdown(gracePeriod: .seconds(5))
        if let postgres = history as? PostgresHistoryStore { await postgres.close() }
        logger.info("stopped")
    }
}

/// A value made after the closures that need it (the room host for the
/// cluster's load, the service group for the drain route).
/// `@unchecked Sendable`: `value` is set once, under the lock, and read
/// under it; `Value` itself is `Sendable`.
final class LateBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    var value: Value? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
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
