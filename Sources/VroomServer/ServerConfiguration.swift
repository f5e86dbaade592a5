import AdminAPI
import Configuration
import Foundation
import Logging
import Rooms
import Signaling

/// Everything `vroom-server` needs to start, in the shape of the config file
/// (`--config vroom.json`, see deploy/vroom.json). Each value is read from
/// layered sources (`ConfigurationSources`): flags, then `VROOM_*`
/// environment variables, then the file, then the defaults written here.
/// Encodable so that `check-config` can print what it resolved.
struct ServerConfiguration: Encodable, Equatable {
    struct HTTP: Encodable, Equatable {
        var port: UInt16 = 7880
        var address: String = "0.0.0.0"
        /// `GET /metrics` wants the API key and secret (HTTP Basic); off by default.
        var metricsAuth = false
    }

    struct RTC: Encodable, Equatable {
        /// Worker k listens on `port + k`; 0 lets the kernel choose.
        var port: UInt16 = 7882
        var workers: Int = ProcessInfo.processInfo.activeProcessorCount
        /// A room's subscribers on its home worker before new ones go to
        /// other workers, which get the room's packets relayed (issue 16).
        var spreadRoomAfter: Int = 32
        /// `::` binds dual-stack (IPv4 and IPv6 peers; IPv4 alone where the
        /// kernel has no IPv6).
        var address: String = "::"
        /// Addresses put in ICE candidates; empty means "derive" (PROTOCOL.md section 1).
        var announceIPs: [String] = []
        /// RFC 7675 consent: media stops this long after the last valid check (53405).
        var consentTimeoutSeconds: Double = 30
        /// ICE-TCP (PROTOCOL.md section 9): each worker also listens on TCP
        /// at its UDP port and offers a passive TCP candidate.
        var iceTcp = true
    }

    /// Room rules and timers (PROTOCOL.md sections 1 and 6).
    struct Rooms: Encodable, Equatable {
        var autoCreate = true
        var maxParticipantsPerNode: Int?
        /// The largest `MaxParticipants` a REST create may ask for.
        var maxParticipantsLimit = 50
        /// `MaxParticipants` of a room created by a join, or by a REST create
        /// that names none (50, Twilio's group-room default).
        var defaultMaxParticipants = 50
        /// Publications per participant; more fail with 53203.
        var maxTracksPerParticipant = 16
        /// Largest message content in UTF-8 bytes (413 above it, PROTOCOL.md 3.5).
        var maxMessageBytes = 10_240
        /// Accepted messages per sender in the rate window (429 above it).
        var maxMessagesPerWindow = 10
        var reconnectWindowSeconds: Double = 30
        /// Defaults of rooms that set none: those a join creates, and REST
        /// creates without `EmptyRoomTimeout` / `UnusedRoomTimeout` (PROTOCOL.md
        /// section 1: the flags let tests shorten every room timer).
        var emptyRoomTimeoutSeconds: Double = 300
        var unusedRoomTimeoutSeconds: Double = 300
        var messageRateWindowSeconds: Double = 60
    }

    /// Signaling session timers (PROTOCOL.md 3.6).
    struct Signaling: Encodable, Equatable {
        var silenceTimeoutSeconds: Double = 15
        var pingIntervalSeconds: Double = 5
        var offerResendSeconds: Double = 10
    }

    /// Status-callback delivery (PROTOCOL.md section 6): a failed attempt is
    /// retried after `retryBaseSeconds`, doubling up to `retryMaxSeconds`.
    /// Tests shorten both so a receiver that was down is caught up quickly.
    struct Webhooks: Encodable, Equatable {
        var retryBaseSeconds: Double = 1
        var retryMaxSeconds: Double = 60
    }

    /// What SIGTERM does (PROTOCOL.md section 6, `/readyz`).
    struct Shutdown: Encodable, Equatable {
        /// After SIGTERM the node reads `draining` on `/readyz` and keeps
        /// serving its rooms until the last participant leaves or this many
        /// seconds pass, then moves what is left (a cluster member) and
        /// stops. 1800 by default (PROTOCOL.md section 8): rooms finish on
        /// their own. A second SIGTERM or SIGINT ends the wait at once; a
        /// supervisor's kill timeout must cover it (systemd's TimeoutStopSec,
        /// Docker's stop grace period, Kubernetes'
        /// terminationGracePeriodSeconds).
        var drainTimeoutSeconds: Double = 1800
    }

    /// A TURN server sharing a secret with the nodes (PROTOCOL.md section 9,
    /// coturn's `use-auth-secret`): `joined.iceServers` and the Tokens route
    /// carry time-limited credentials for `urls`. Empty `urls`: no TURN.
    struct TURN: Encodable, Equatable {
        /// `turn:` / `turns:` URLs handed to clients.
        var urls: [String] = []
        /// coturn's `static-auth-secret`; required with `urls`.
        var secret: String?
        /// Lifetime of a credential in seconds.
        var ttl: Int = 86_400
        /// A year: longer credentials are as good as permanent ones.
        static let longestTTL = 31_536_000
    }

    /// HTTPS and WSS on the HTTP port (PROTOCOL.md section 9): both PEM
    /// files or neither (plain HTTP, e.g. behind a TLS-terminating proxy).
    struct TLS: Encodable, Equatable {
        /// The certificate chain, leaf first (PEM); reread on SIGHUP.
        var cert: String?
        /// Its private key (PEM); reread on SIGHUP.
        var key: String?
        /// A connection whose handshake has not completed this long after
        /// accept is closed. 10 s: a real client on a slow mobile link needs
        /// 2-3 round trips (under 2 s even at 500 ms RTT); a client that
        /// stops half way holds a socket and a few KB no longer than this.
        var handshakeTimeoutSeconds: Double = 10

        var isEnabled: Bool { cert != nil }
    }

    var http = HTTP()
    var tls = TLS()
    var rtc = RTC()
    var rooms = Rooms()
    var signaling = Signaling()
    var webhooks = Webhooks()
    var shutdown = Shutdown()
    var turn = TURN()
    /// Where rooms, participants and publications are kept: a SQLite file
    /// (one node alone), or a `postgres://user:password@host:port/dbname`
    /// URL, which makes the node a member of the cluster sharing that
    /// database (PROTOCOL.md section 8).
    var db = "./vroom.sqlite"
    /// How clients and other nodes reach this node's HTTP port in a cluster,
    /// e.g. `http://10.0.0.5:7880`; nil: the public URL, else
    /// `http://<http.address>:<http.port>`.
    var nodeURL: String?
    var apiKey: String?
    var apiSecret: String?
    var dev = false
    var logLevel: Logger.Level = .info
    /// Base of the REST API's absolute URLs (`url`, `links`, page URLs), e.g.
    /// `https://video.example.com`; nil: the address each request came to.
    var publicURL: String?
    /// `account_sid` in REST resources; nil: derived from the API key.
    var accountSID: String?

    init() {}
}

extension ServerConfiguration {
    /// A database URL (`postgres://…`; any other scheme is refused when
    /// connecting): this node is a member of a cluster. Else a SQLite path.
    var isCluster: Bool { db.contains("://") }

    /// `nodeURL`, else the public URL, else this node's HTTP address
    /// (`https` with TLS, so redirects and moves name `wss://`). A wildcard
    /// HTTP address (`0.0.0.0`, `::`) names no machine, so the first
    /// `--announce-ip` stands for it when there is one.
    var resolvedNodeURL: String {
        nodeURL ?? publicURL ?? "\(tls.isEnabled ? "https" : "http")://\(Self.urlHost(nodeHost)):\(http.port)"
    }

    /// The host of a node URL made from the HTTP address.
    private var nodeHost: String {
        guard Self.isWildcard(http.address), let announced = rtc.announceIPs.first else { return http.address }
        return announced
    }

    /// Whether the node URL names no reachable machine: made from a
    /// wildcard HTTP address with nothing to stand for it (the start
    /// warns: only this machine reaches it).
    var nodeURLIsWildcard: Bool {
        nodeURL == nil && publicURL == nil && Self.isWildcard(nodeHost)
    }

    static func isWildcard(_ address: String) -> Bool { address == "0.0.0.0" || address == "::" }

    /// Reads every key through `reader` (absent keys keep their defaults),
    /// then applies `--dev` and checks the values. A value of the wrong type
    /// in any source is an error naming the key, never a silent default.
    init(reading reader: ConfigReader, errors: ConfigurationErrors) throws {
        self.init()
        let d = ServerConfiguration()
        func port(_ key: ConfigKey, _ fallback: UInt16) throws -> UInt16 {
            let value = reader.int(forKey: key, default: Int(fallback))
            guard let port = UInt16(exactly: value) else {
                throw ConfigurationError("\(key) must be a port number (0-65535), not \(value)")
            }
            return port
        }
        http.port = try port("http.port", d.http.port)
        http.address = reader.string(forKey: "http.address", default: d.http.address)
        http.metricsAuth = reader.bool(forKey: "http.metricsAuth", default: d.http.metricsAuth)

        tls.cert = reader.string(forKey: "tls.cert")
        tls.key = reader.string(forKey: "tls.key")
        tls.handshakeTimeoutSeconds = reader.double(forKey: "tls.handshakeTimeoutSeconds", default: d.tls.handshakeTimeoutSeconds)

        rtc.port = try port("rtc.port", d.rtc.port)
        rtc.workers = reader.int(forKey: "rtc.workers", default: d.rtc.workers)
        rtc.spreadRoomAfter = reader.int(forKey: "rtc.spreadRoomAfter", default: d.rtc.spreadRoomAfter)
        rtc.address = reader.string(forKey: "rtc.address", default: d.rtc.address)
        rtc.announceIPs = reader.stringArray(forKey: "rtc.announceIPs", default: d.rtc.announceIPs)
        rtc.consentTimeoutSeconds = reader.double(forKey: "rtc.consentTimeoutSeconds", default: d.rtc.consentTimeoutSeconds)
        rtc.iceTcp = reader.bool(forKey: "rtc.iceTcp", default: d.rtc.iceTcp)

        rooms.autoCreate = reader.bool(forKey: "rooms.autoCreate", default: d.rooms.autoCreate)
        rooms.maxParticipantsPerNode = reader.int(forKey: "rooms.maxParticipantsPerNode")
        rooms.maxParticipantsLimit = reader.int(forKey: "rooms.maxParticipantsLimit", default: d.rooms.maxParticipantsLimit)
        rooms.defaultMaxParticipants = reader.int(
            forKey: "rooms.defaultMaxParticipants", default: min(d.rooms.defaultMaxParticipants, rooms.maxParticipantsLimit))
        rooms.maxTracksPerParticipant = reader.int(
            forKey: "rooms.maxTracksPerParticipant", default: d.rooms.maxTracksPerParticipant)
        rooms.maxMessageBytes = reader.int(forKey: "rooms.maxMessageBytes", default: d.rooms.maxMessageBytes)
        rooms.maxMessagesPerWindow = reader.int(forKey: "rooms.maxMessagesPerWindow", default: d.rooms.maxMessagesPerWindow)
        rooms.reconnectWindowSeconds = reader.double(forKey: "rooms.reconnectWindowSeconds", default: d.rooms.reconnectWindowSeconds)
        rooms.emptyRoomTimeoutSeconds = reader.double(forKey: "rooms.emptyRoomTimeoutSeconds", default: d.rooms.emptyRoomTimeoutSeconds)
        rooms.unusedRoomTimeoutSeconds = reader.double(
            forKey: "rooms.unusedRoomTimeoutSeconds", default: d.rooms.unusedRoomTimeoutSeconds)
        rooms.messageRateWindowSeconds = reader.double(
            forKey: "rooms.messageRateWindowSeconds", default: d.rooms.messageRateWindowSeconds)

        signaling.silenceTimeoutSeconds = reader.double(
            forKey: "signaling.silenceTimeoutSeconds", default: d.signaling.silenceTimeoutSeconds)
        signaling.pingIntervalSeconds = reader.double(forKey: "signaling.pingIntervalSeconds", default: d.signaling.pingIntervalSeconds)
        signaling.offerResendSeconds = reader.double(forKey: "signaling.offerResendSeconds", default: d.signaling.offerResendSeconds)

        webhooks.retryBaseSeconds = reader.double(forKey: "webhooks.retryBaseSeconds", default: d.webhooks.retryBaseSeconds)
        // A base given alone lifts the max to it rather than failing the check below.
        webhooks.retryMaxSeconds = reader.double(
            forKey: "webhooks.retryMaxSeconds", default: max(d.webhooks.retryMaxSeconds, webhooks.retryBaseSeconds))

        shutdown.drainTimeoutSeconds = reader.double(forKey: "shutdown.drainTimeoutSeconds", default: d.shutdown.drainTimeoutSeconds)

        turn.urls = reader.stringArray(forKey: "turn.urls", default: d.turn.urls)
        turn.secret = reader.string(forKey: "turn.secret", isSecret: true)
        turn.ttl = reader.int(forKey: "turn.ttl", default: d.turn.ttl)

        db = reader.string(forKey: "db", default: d.db)
        nodeURL = reader.string(forKey: "nodeURL")
        apiKey = reader.string(forKey: "apiKey")
        apiSecret = reader.string(forKey: "apiSecret", isSecret: true)
        dev = reader.bool(forKey: "dev", default: d.dev)
        let level = reader.string(forKey: "logLevel", default: d.logLevel.rawValue)
        publicURL = reader.string(forKey: "publicURL")
        accountSID = reader.string(forKey: "accountSID")

        // Type errors first: a key that failed to convert read as its default above.
        try errors.check()
        guard let parsedLevel = Logger.Level(rawValue: level) else {
            let levels = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationError("logLevel (--log-level, VROOM_LOG_LEVEL) must be one of \(levels), not '\(level)'")
        }
        logLevel = parsedLevel
        if dev {
            // Loopback only: 127.0.0.1, or ::1 when asked for.
            if http.address != "::1" { http.address = "127.0.0.1" }
            if rtc.address != "::1" { rtc.address = "127.0.0.1" }
            if rtc.announceIPs.isEmpty { rtc.announceIPs = [rtc.address] }
            if apiKey == nil { apiKey = "devkey" }
            if apiSecret == nil { apiSecret = "devsecret" }
        }
        try validate()
    }

    /// The checks no single key's type expresses.
    func validate() throws {
        guard rtc.consentTimeoutSeconds > 0 else {
            throw ConfigurationError("rtc.consentTimeoutSeconds (--consent-timeout) must be positive")
        }
        guard webhooks.retryBaseSeconds > 0, webhooks.retryMaxSeconds >= webhooks.retryBaseSeconds else {
            throw ConfigurationError("--webhook-retry-base must be positive and at most --webhook-retry-max")
        }
        guard rtc.workers >= 1 else { throw ConfigurationError("--rtc-workers must be at least 1") }
        guard rtc.spreadRoomAfter >= 1 else { throw ConfigurationError("--rtc-spread-room-after must be at least 1") }
        guard rooms.maxParticipantsLimit >= 1 else {
            throw ConfigurationError("rooms.maxParticipantsLimit (--max-participants-limit) must be at least 1")
        }
        guard (1...rooms.maxParticipantsLimit).contains(rooms.defaultMaxParticipants) else {
            throw ConfigurationError(
                "rooms.defaultMaxParticipants (--default-max-participants) must be in 1...\(rooms.maxParticipantsLimit) (rooms.maxParticipantsLimit)")
        }
        guard rooms.maxTracksPerParticipant >= 1 else {
            throw ConfigurationError("rooms.maxTracksPerParticipant (--max-tracks) must be at least 1")
        }
        // A client frame is at most 64 KiB (53003 above), the content's escaping and the envelope included.
        guard (1...32_768).contains(rooms.maxMessageBytes) else {
            throw ConfigurationError("rooms.maxMessageBytes (--max-message-bytes) must be in 1...32768")
        }
        guard rooms.maxMessagesPerWindow >= 1 else {
            throw ConfigurationError("rooms.maxMessagesPerWindow (--max-messages-per-window) must be at least 1")
        }
        guard shutdown.drainTimeoutSeconds >= 0 else {
            throw ConfigurationError("shutdown.drainTimeoutSeconds (--drain-timeout) must not be negative")
        }
        if let sid = accountSID, sid.count != 34 || !sid.hasPrefix("AC") || !sid.dropFirst(2).allSatisfy(\.isHexDigit) {
            throw ConfigurationError("--account-sid must be AC followed by 32 hex digits")
        }
        for url in turn.urls where !(url.hasPrefix("turn:") || url.hasPrefix("turns:")) || url.count <= 6 {
            throw ConfigurationError("turn.urls (--turn-url, VROOM_TURN_URLS) must be turn: or turns: URLs, not '\(url)'")
        }
        guard (1...TURN.longestTTL).contains(turn.ttl) else {
            throw ConfigurationError(
                "turn.ttl (--turn-ttl, VROOM_TURN_TTL) must be a number of seconds in 1...\(TURN.longestTTL), not \(turn.ttl)")
        }
        if !turn.urls.isEmpty, turn.secret?.isEmpty ?? true {
            throw ConfigurationError("turn.secret (--turn-secret, VROOM_TURN_SECRET) is required with turn.urls")
        }
        for ip in rtc.announceIPs {
            guard let family = Self.family(of: ip) else {
                throw ConfigurationError("rtc.announceIPs (--announce-ip, VROOM_RTC_ANNOUNCE_IPS) must be IP addresses, not '\(ip)'")
            }
            guard let bound = Self.family(of: rtc.address) else {
                throw ConfigurationError("rtc.address (--rtc-address, VROOM_RTC_ADDRESS) must be an IP address, not '\(rtc.address)'")
            }
            // PROTOCOL.md section 9: only what the workers can answer from.
            if family != bound && rtc.address != "::" {
                throw ConfigurationError(
                    "--announce-ip \(ip) is IPv\(family == AF_INET ? 4 : 6), but the media workers bind \(rtc.address) only: "
                        + "bind :: (dual-stack, the default) to announce both")
            }
        }
        guard (tls.cert == nil) == (tls.key == nil) else {
            throw ConfigurationError(
                "tls.cert (--tls-cert, VROOM_TLS_CERT) and tls.key (--tls-key, VROOM_TLS_KEY) go together: give both PEM files, or neither for plain HTTP")
        }
        guard tls.handshakeTimeoutSeconds > 0 else {
            throw ConfigurationError("tls.handshakeTimeoutSeconds (--tls-handshake-timeout) must be positive")
        }
        guard apiKey != nil, apiSecret != nil else {
            throw ConfigurationError(
                "an API key and secret are required (--api-key/--api-secret, VROOM_API_KEY/VROOM_API_SECRET), or use --dev")
        }
    }

    /// The outbox's settings: the configured retry delays, the rest its defaults.
    func webhookOutbox(apiSecret: String) -> WebhookOutbox.Configuration {
        WebhookOutbox.Configuration(
            apiSecret: apiSecret, initialDelay: .milliseconds(Int64(webhooks.retryBaseSeconds * 1000)),
            maxDelay: .milliseconds(Int64(webhooks.retryMaxSeconds * 1000)))
    }

    var roomService: RoomServiceConfiguration {
        var c = RoomServiceConfiguration()
        c.autoCreateRooms = rooms.autoCreate
        c.maxParticipantsPerNode = rooms.maxParticipantsPerNode
        c.maxParticipantsLimit = rooms.maxParticipantsLimit
        c.defaultMaxParticipants = rooms.defaultMaxParticipants
        c.maxTracksPerParticipant = rooms.maxTracksPerParticipant
        c.maxMessageBytes = rooms.maxMessageBytes
        c.maxMessagesPerWindow = rooms.maxMessagesPerWindow
        c.reconnectWindow = rooms.reconnectWindowSeconds
        c.emptyRoomTimeout = rooms.emptyRoomTimeoutSeconds
        c.unusedRoomTimeout = rooms.unusedRoomTimeoutSeconds
        c.messageRateWindow = rooms.messageRateWindowSeconds
        return c
    }

    var signalingSettings: SignalingSettings {
        var s = SignalingSettings()
        s.silenceTimeout = signaling.silenceTimeoutSeconds
        s.pingInterval = signaling.pingIntervalSeconds
        s.offerResendInterval = signaling.offerResendSeconds
        if let turn = turnConfiguration {
            // One entry for all URLs, as a browser's RTCIceServer takes them.
            s.iceServers = { participant, now in
                let credential = turn.credential(for: participant.rawValue, now: now)
                return [.init(urls: turn.urls, username: credential.username, credential: credential.password)]
            }
        }
        return s
    }

    /// The TURN server of `turn.*`; nil without URLs (a secret alone does nothing).
    var turnConfiguration: TURNConfiguration? {
        guard !turn.urls.isEmpty, let secret = turn.secret else { return nil }
        return TURNConfiguration(urls: turn.urls, secret: secret, ttl: turn.ttl)
    }
}

extension ServerConfiguration {
    /// AF_INET or AF_INET6 for an IP address in text; nil for anything else.
    static func family(of address: String) -> Int32? {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, address, &v4) == 1 { return AF_INET }
        if inet_pton(AF_INET6, address, &v6) == 1 { return AF_INET6 }
        return nil
    }

    /// An address as a URL's host: IPv6 in brackets.
    static func urlHost(_ address: String) -> String {
        address.contains(":") ? "[\(address)]" : address
    }
}
