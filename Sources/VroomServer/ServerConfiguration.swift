import Foundation

/// Everything `vroom-server` needs to start, in the shape of the config file
/// (`--config vroom.json`, see deploy/vroom.json). Precedence, lowest first:
/// built-in defaults, the config file, environment variables, flags.
struct ServerConfiguration: Codable, Equatable {
    struct HTTP: Codable, Equatable {
        var port: UInt16 = 7880
        var address: String = "0.0.0.0"
    }

    struct RTC: Codable, Equatable {
        /// Worker k listens on `port + k`; 0 lets the kernel choose.
        var port: UInt16 = 7882
        var workers: Int = ProcessInfo.processInfo.activeProcessorCount
        var address: String = "0.0.0.0"
        /// Addresses put in ICE candidates; empty means "derive" (PROTOCOL.md section 1).
        var announceIPs: [String] = []
    }

    var http = HTTP()
    var rtc = RTC()
    var apiKey: String?
    var apiSecret: String?
    var dev = false
    var logLevel = "info"

    init() {}

    // Every key is optional in the file: absent keys keep their defaults.
    init(from decoder: any Decoder) throws {
        let defaults = ServerConfiguration()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        http = try c.decodeIfPresent(HTTP.self, forKey: .http) ?? defaults.http
        rtc = try c.decodeIfPresent(RTC.self, forKey: .rtc) ?? defaults.rtc
        apiKey = try c.decodeIfPresent(String.self, forKey: .apiKey)
        apiSecret = try c.decodeIfPresent(String.self, forKey: .apiSecret)
        dev = try c.decodeIfPresent(Bool.self, forKey: .dev) ?? false
        logLevel = try c.decodeIfPresent(String.self, forKey: .logLevel) ?? defaults.logLevel
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
    }
}
