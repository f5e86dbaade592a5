import AdminAPI
import Foundation
import Rooms
import Signaling

/// Everything `vroom-server` needs to start, in the shape of the config file
/// (`--config vroom.json`, see deploy/vroom.json). Precedence, lowest first:
/// built-in defaults, the config file, environment variables, flags.
struct ServerConfiguration: Codable, Equatable {
    struct HTTP: Codable, Equatable {
        var port: UInt16 = 7880
        var address: String = "0.0.0.0"
        /// `GET /metrics` wants the API key and secret (HTTP Basic); off by default.
        var metricsAuth = false
    }

    struct RTC: Codable, Equatable {
        /// Worker k listens on `port + k`; 0 lets the kernel choose.
        var port: UInt16 = 7882
        var workers: Int = ProcessInfo.processInfo.activeProcessorCount
        var address: String = "0.0.0.0"
        /// Addresses put in ICE candidates; empty means "derive" (PROTOCOL.md section 1).
        var announceIPs: [String] = []
        /// RFC 7675 consent: media stops this long after the last valid check (53405).
        var consentTimeoutSeconds: Double = 30
    }

    /// Room rules and timers (PROTOCOL.md sections 1 and 6).
    struct Rooms: Codable, Equatable {
        var autoCreate = true
        var maxParticipantsPerNode: Int?
        /// The largest `MaxParticipants` a REST create may ask for.
        var maxParticipantsLimit = 50
        var reconnectWindowSeconds: Double = 30
        /// Defaults of rooms created by a join (REST sets its own, in minutes).
        var emptyRoomTimeoutSeconds: Double = 300
        var unusedRoomTimeoutSeconds: Double = 300
        var messageRateWindowSeconds: Double = 60
    }

    /// Signaling session timers (PROTOCOL.md 3.6).
    struct Signaling: Codable, Equatable {
        var silenceTimeoutSeconds: Double = 15
        var pingIntervalSeconds: Double = 5
        var offerResendSeconds: Double = 10
    }

    /// Status-callback delivery (PROTOCOL.md section 6): a failed attempt is
    /// retried after `retryBaseSeconds`, doubling up to `retryMaxSeconds`.
    /// Tests shorten both so a receiver that was down is caught up quickly.
    struct Webhooks: Codable, Equatable {
        var retryBaseSeconds: Double = 1
        var retryMaxSeconds: Double = 60
    }

    var http = HTTP()
    var rtc = RTC()
    var rooms = Rooms()
    var signaling = Signaling()
    var webhooks = Webhooks()
    /// The SQLite history file (rooms and participants, kept across restarts).
    var db = "./vroom.sqlite"
    var apiKey: String?
    var apiSecret: String?
    var dev = false
    var logLevel = "info"
    /// Base of the REST API's absolute URLs (`url`, `links`, page URLs), e.g.
    /// `https://video.example.com`; nil: the address each request came to.
    var publicURL: String?
    /// `account_sid` in REST resources; nil: derived from the API key.
    var accountSID: String?

    init() {}

    // Every key is optional in the file: absent keys keep their defaults.
    init(from decoder: any Decoder) throws {
        let defaults = ServerConfiguration()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        http = try c.decodeIfPresent(HTTP.self, forKey: .http) ?? defaults.http
        rtc = try c.decodeIfPresent(RTC.self, forKey: .rtc) ?? defaults.rtc
        rooms = try c.decodeIfPresent(Rooms.self, forKey: .rooms) ?? defaults.rooms
        signaling = try c.decodeIfPresent(Signaling.self, forKey: .signaling) ?? defaults.signaling
        webhooks = try c.decodeIfPresent(Webhooks.self, forKey: .webhooks) ?? defaults.webhooks
        db = try c.decodeIfPresent(String.self, forKey: .db) ?? defaults.db
        apiKey = try c.decodeIfPresent(String.self, forKey: .apiKey)
        apiSecret = try c.decodeIfPresent(String.self, forKey: .apiSecret)
        dev = try c.decodeIfPresent(Bool.self, forKey: .dev) ?? false
        logLevel = try c.decodeIfPresent(String.self, forKey: .logLevel) ?? defaults.logLevel
        publicURL = try c.decodeIfPresent(String.self, forKey: .publicURL)
        accountSID = try c.decodeIfPresent(String.self, forKey: .accountSID)
    }

    static func load(path: String) throws -> ServerConfiguration {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try JSONDecoder().decode(ServerConfiguration.self, from: data)
    }
}

extension ServerConfiguration.HTTP {
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        port = try c.decodeIfPresent(UInt16.self, forKey: .port) ?? 7880
        address = try c.decodeIfPresent(String.self, forKey: .address) ?? "0.0.0.0"
        metricsAuth = try c.decodeIfPresent(Bool.self, forKey: .metricsAuth) ?? false
    }
}

extension ServerConfiguration.RTC {
    init(from decoder: any Decoder) throws {
        let defaults = Self()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        port = try c.decodeIfPresent(UInt16.self, forKey: .port) ?? defaults.port
        workers = try c.decodeIfPresent(Int.self, forKey: .workers) ?? defaults.workers
        address = try c.decodeIfPresent(String.self, forKey: .address) ?? defaults.address
        announceIPs = try c.decodeIfPresent([String].self, forKey: .announceIPs) ?? defaults.announceIPs
        consentTimeoutSeconds = try c.decodeIfPresent(Double.self, forKey: .consentTimeoutSeconds) ?? defaults.consentTimeoutSeconds
        guard consentTimeoutSeconds > 0 else {
            throw DecodingError.dataCorruptedError(forKey: .consentTimeoutSeconds, in: c, debugDescription: "must be positive")
        }
    }
}

extension ServerConfiguration.Rooms {
    init(from decoder: any Decoder) throws {
        let d = Self()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        autoCreate = try c.decodeIfPresent(Bool.self, forKey: .autoCreate) ?? d.autoCreate
        maxParticipantsPerNode = try c.decodeIfPresent(Int.self, forKey: .maxParticipantsPerNode)
        maxParticipantsLimit = try c.decodeIfPresent(Int.self, forKey: .maxParticipantsLimit) ?? d.maxParticipantsLimit
        reconnectWindowSeconds = try c.decodeIfPresent(Double.self, forKey: .reconnectWindowSeconds) ?? d.reconnectWindowSeconds
        emptyRoomTimeoutSeconds = try c.decodeIfPresent(Double.self, forKey: .emptyRoomTimeoutSeconds) ?? d.emptyRoomTimeoutSeconds
        unusedRoomTimeoutSeconds = try c.decodeIfPresent(Double.self, forKey: .unusedRoomTimeoutSeconds) ?? d.unusedRoomTimeoutSeconds
        messageRateWindowSeconds = try c.decodeIfPresent(Double.self, forKey: .messageRateWindowSeconds) ?? d.messageRateWindowSeconds
    }
}

extension ServerConfiguration.Signaling {
    init(from decoder: any Decoder) throws {
        let d = Self()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        silenceTimeoutSeconds = try c.decodeIfPresent(Double.self, forKey: .silenceTimeoutSeconds) ?? d.silenceTimeoutSeconds
        pingIntervalSeconds = try c.decodeIfPresent(Double.self, forKey: .pingIntervalSeconds) ?? d.pingIntervalSeconds
        offerResendSeconds = try c.decodeIfPresent(Double.self, forKey: .offerResendSeconds) ?? d.offerResendSeconds
    }
}

extension ServerConfiguration.Webhooks {
    init(from decoder: any Decoder) throws {
        let d = Self()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        retryBaseSeconds = try c.decodeIfPresent(Double.self, forKey: .retryBaseSeconds) ?? d.retryBaseSeconds
        retryMaxSeconds = try c.decodeIfPresent(Double.self, forKey: .retryMaxSeconds) ?? d.retryMaxSeconds
        guard retryBaseSeconds > 0, retryMaxSeconds >= retryBaseSeconds else {
            throw DecodingError.dataCorruptedError(
                forKey: .retryMaxSeconds, in: c, debugDescription: "need 0 < retryBaseSeconds <= retryMaxSeconds")
        }
    }
}

extension ServerConfiguration {
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
        return s
    }
}
