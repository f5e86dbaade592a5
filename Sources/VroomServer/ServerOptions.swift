import ArgumentParser
import Foundation
import Configuration

/// The flags every subcommand that starts or checks a server shares. Each
/// one sets a config key (README, "Running the server"); a flag that is not
/// given leaves the key to the environment, the file and the defaults
/// (`ConfigurationSources`).
struct ServerOptions: ParsableArguments {
    @Flag(help: "Development mode: loopback only, API key devkey / devsecret.")
    var dev = false

    @Option(help: "JSON config file (see deploy/vroom.json); also VROOM_CONFIG.")
    var config: String?

    @Option(help: "Address the HTTP server binds.")
    var httpAddress: String?

    @Option(help: "TCP port for HTTP: REST, signaling, demo page, /healthz, /readyz, /metrics.")
    var httpPort: UInt16?

    @Option(help: "PEM certificate chain: serve HTTPS and WSS on the HTTP port (with --tls-key; reread on SIGHUP).")
    var tlsCert: String?

    @Option(help: "PEM private key of --tls-cert.")
    var tlsKey: String?

    @Option(help: "Seconds a TLS handshake may take before the connection is closed (default 10).")
    var tlsHandshakeTimeout: Double?

    @Flag(help: "Require the API key and secret (HTTP Basic) for GET /metrics.")
    var metricsAuth = false

    @Option(help: "Address the media workers' UDP sockets bind.")
    var rtcAddress: String?

    @Option(help: "UDP port of media worker 0 (worker k uses port+k); 0 picks free ports.")
    var rtcPort: UInt16?

    @Option(help: "Number of media workers (threads and UDP ports).")
    var rtcWorkers: Int?

    @Option(help: "Subscribers of one room on its home media worker before new ones go to other workers.")
    var rtcSpreadRoomAfter: Int?

    @Option(help: "Address to put in ICE candidates (repeatable).")
    var announceIP: [String] = []

    @Option(help: "API key (also VROOM_API_KEY).")
    var apiKey: String?

    @Option(help: "API secret (also VROOM_API_SECRET).")
    var apiSecret: String?

    @Option(help: "SQLite file for room and participant history (one node), or postgres://user:password@host:port/dbname for a cluster.")
    var db: String?

    @Option(help: "How clients and other nodes reach this node's HTTP port in a cluster, e.g. http://10.0.0.5:7880 (default: the public URL).")
    var nodeURL: String?

    @Flag(inversion: .prefixedNo, help: "Also listen on TCP at each media port and offer passive ICE-TCP candidates (default on).")
    var iceTcp: Bool?

    @Flag(inversion: .prefixedNo, help: "Create a room when a join names an unknown one (default on).")
    var autoCreate: Bool?

    @Option(help: "Participants this node takes before answering 53006.")
    var maxParticipantsPerNode: Int?

    @Option(help: "Largest MaxParticipants a REST create may ask for (53107 above it).")
    var maxParticipantsLimit: Int?

    @Option(help: "MaxParticipants of a room created by a join (or a REST create that names none).")
    var defaultMaxParticipants: Int?

    @Option(help: "Publications a participant may have at once (53203 above it; default 16).")
    var maxTracks: Int?

    @Option(help: "Largest message content in UTF-8 bytes, at most 32768 (413 above it; default 10240).")
    var maxMessageBytes: Int?

    @Option(help: "Accepted messages per sender in the rate window (429 above it; default 10).")
    var maxMessagesPerWindow: Int?

    @Option(help: "Seconds a dropped participant may resume (PROTOCOL.md 3.6).")
    var reconnectWindow: Double?

    @Option(help: "Seconds without a client frame before 53002.")
    var silenceTimeout: Double?

    @Option(help: "Seconds between the server's WebSocket pings.")
    var pingInterval: Double?

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

    @Option(help: "Seconds after SIGTERM that the node, reading 'draining' on /readyz, keeps serving until its last participant leaves; a second SIGTERM ends the wait (default 1800).")
    var drainTimeout: Double?

    @Option(help: "Base URL of the REST API's absolute links, e.g. https://video.example.com (default: the request's Host).")
    var publicURL: String?

    @Option(help: "account_sid shown in REST resources (AC + 32 hex; default: derived from the API key).")
    var accountSID: String?

    @Option(help: "TURN server URL handed to clients with time-limited credentials, turn: or turns: (repeatable).")
    var turnURL: [String] = []

    @Option(help: "Secret shared with the TURN server (coturn's static-auth-secret; also VROOM_TURN_SECRET).")
    var turnSecret: String?

    @Option(help: "Lifetime of a TURN credential in seconds (default 86400).")
    var turnTTL: Int?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String?

    /// The flags that were given, by config key: the top layer.
    var configValues: [AbsoluteConfigKey: ConfigValue] {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        func set(_ key: AbsoluteConfigKey, _ content: ConfigContent?, isSecret: Bool = false) {
            if let content { values[key] = ConfigValue(content, isSecret: isSecret) }
        }
        // Presence flags can only turn their key on; absent, they leave it to the layers below.
        set("dev", dev ? .bool(true) : nil)
        set("http.metricsAuth", metricsAuth ? .bool(true) : nil)
        set("http.address", httpAddress.map(ConfigContent.string))
        set("http.port", httpPort.map { .int(Int($0)) })
        set("tls.cert", tlsCert.map(ConfigContent.string))
        set("tls.key", tlsKey.map(ConfigContent.string))
        set("tls.handshakeTimeoutSeconds", tlsHandshakeTimeout.map(ConfigContent.double))
        set("rtc.address", rtcAddress.map(ConfigContent.string))
        set("rtc.port", rtcPort.map { .int(Int($0)) })
        set("rtc.workers", rtcWorkers.map(ConfigContent.int))
        set("rtc.spreadRoomAfter", rtcSpreadRoomAfter.map(ConfigContent.int))
        set("rtc.announceIPs", announceIP.isEmpty ? nil : .stringArray(announceIP))
        set("rtc.consentTimeoutSeconds", consentTimeout.map(ConfigContent.double))
        set("rtc.iceTcp", iceTcp.map(ConfigContent.bool))
        set("apiKey", apiKey.map(ConfigContent.string))
        set("apiSecret", apiSecret.map(ConfigContent.string), isSecret: true)
        set("db", db.map(ConfigContent.string))
        set("nodeURL", nodeURL.map(ConfigContent.string))
        set("rooms.autoCreate", autoCreate.map(ConfigContent.bool))
        set("rooms.maxParticipantsPerNode", maxParticipantsPerNode.map(ConfigContent.int))
        set("rooms.maxParticipantsLimit", maxParticipantsLimit.map(ConfigContent.int))
        set("rooms.defaultMaxParticipants", defaultMaxParticipants.map(ConfigContent.int))
        set("rooms.maxTracksPerParticipant", maxTracks.map(ConfigContent.int))
        set("rooms.maxMessageBytes", maxMessageBytes.map(ConfigContent.int))
        set("rooms.maxMessagesPerWindow", maxMessagesPerWindow.map(ConfigContent.int))
        set("rooms.reconnectWindowSeconds", reconnectWindow.map(ConfigContent.double))
        set("rooms.emptyRoomTimeoutSeconds", emptyRoomTimeout.map(ConfigContent.double))
        set("rooms.unusedRoomTimeoutSeconds", unusedRoomTimeout.map(ConfigContent.double))
        set("rooms.messageRateWindowSeconds", messageRateWindow.map(ConfigContent.double))
        set("signaling.silenceTimeoutSeconds", silenceTimeout.map(ConfigContent.double))
        set("signaling.pingIntervalSeconds", pingInterval.map(ConfigContent.double))
        set("signaling.offerResendSeconds", offerResend.map(ConfigContent.double))
        set("webhooks.retryBaseSeconds", webhookRetryBase.map(ConfigContent.double))
        set("webhooks.retryMaxSeconds", webhookRetryMax.map(ConfigContent.double))
        set("shutdown.drainTimeoutSeconds", drainTimeout.map(ConfigContent.double))
        set("publicURL", publicURL.map(ConfigContent.string))
        set("accountSID", accountSID.map(ConfigContent.string))
        set("turn.urls", turnURL.isEmpty ? nil : .stringArray(turnURL))
        set("turn.secret", turnSecret.map(ConfigContent.string), isSecret: true)
        set("turn.ttl", turnTTL.map(ConfigContent.int))
        set("logLevel", logLevel.map(ConfigContent.string))
        return values
    }

    /// The configuration as `serve` uses it: flags over `VROOM_*`
    /// environment variables over the config file over the defaults.
    func resolvedConfiguration(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> ServerConfiguration {
        try await ConfigurationSources(flags: configValues, configFile: config, environment: environment).read()
    }
}
