import Foundation
import Testing
import VroomTesting

/// `vroom-server`'s configuration layers (README, "Running the server"):
/// the JSON file, then `VROOM_*` environment variables, then flags, checked
/// through `vroom-server check-config`, which prints what it resolved.
extension ServerProcessTests {
@Suite struct ConfigurationLayeringTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String

        /// The printed configuration's value at a dotted key.
        func value(_ key: String) -> Any? {
            guard let object = try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) else { return nil }
            return key.split(separator: ".").reduce(object as Any?) { ($0 as? [String: Any])?[String($1)] }
        }
    }

    /// `vroom-server check-config` with exactly `environment` (nothing
    /// inherited from the test's own environment).
    static func checkConfig(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = try BuiltProduct.url(named: "vroom-server")
        process.arguments = ["check-config"] + arguments
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        while process.isRunning { Thread.sleep(forTimeInterval: 0.01) }
        return Run(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    static func writeConfig(_ json: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("vroom-config-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: file)
        return file
    }

    /// Numbers, strings, booleans and string lists, compared as JSON values.
    static func same(_ actual: Any?, _ expected: Any) -> Bool {
        switch expected {
        case let text as String: return actual as? String == text
        case let list as [String]: return actual as? [String] == list
        case let flag as Bool: return (actual as? NSNumber)?.boolValue == flag && !(actual is String)
        case let number as Double: return (actual as? NSNumber)?.doubleValue == number
        case let number as Int: return (actual as? NSNumber)?.doubleValue == Double(number)
        default: return false
        }
    }

    @Test func theFileIsUnderTheEnvironmentWhichIsUnderTheFlags() throws {
        let file = try Self.writeConfig("""
            {"http": {"port": 1111, "address": "10.9.9.9"}, "rtc": {"workers": 3, "port": 5000},
             "rooms": {"maxParticipantsLimit": 20}, "logLevel": "debug", "apiKey": "file-key", "apiSecret": "file-secret"}
            """)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try Self.checkConfig(
            ["--config", file.path, "--http-port", "3333", "--rtc-port", "6000"],
            environment: ["VROOM_HTTP_PORT": "2222", "VROOM_RTC_WORKERS": "4", "VROOM_RTC_PORT": "5500", "VROOM_API_KEY": "env-key"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.same(run.value("http.port"), 3333), "flag over environment over file")
        #expect(Self.same(run.value("rtc.port"), 6000), "flag over environment over file")
        #expect(Self.same(run.value("rtc.workers"), 4), "environment over file")
        #expect(Self.same(run.value("apiKey"), "env-key"), "environment over file")
        #expect(Self.same(run.value("http.address"), "10.9.9.9"), "file over default")
        #expect(Self.same(run.value("rooms.maxParticipantsLimit"), 20), "file over default")
        #expect(Self.same(run.value("logLevel"), "debug"), "file over default")
        #expect(Self.same(run.value("signaling.pingIntervalSeconds"), 5), "default")

        // The file may be named by the environment too.
        let named = try Self.checkConfig([], environment: ["VROOM_CONFIG": file.path])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(Self.same(named.value("http.port"), 1111))
        #expect(Self.same(named.value("apiKey"), "file-key"))
    }

    /// A value for each key of README's table, as its environment variable
    /// spells it, as its flags spell it, and as `check-config` prints it.
    static var samples: [String: (environment: String, flags: [String], printed: Any)] { [
        "http.address": ("10.1.2.3", ["--http-address", "10.1.2.3"], "10.1.2.3"),
        "http.port": ("1234", ["--http-port", "1234"], 1234),
        "http.metricsAuth": ("true", ["--metrics-auth"], true),
        // check-config does not read the files: serve does (TLSEndToEndTests).
        "tls.cert": ("/etc/vroom/cert.pem", ["--tls-cert", "/etc/vroom/cert.pem"], "/etc/vroom/cert.pem"),
        "tls.key": ("/etc/vroom/key.pem", ["--tls-key", "/etc/vroom/key.pem"], "/etc/vroom/key.pem"),
        "tls.handshakeTimeoutSeconds": ("4.5", ["--tls-handshake-timeout", "4.5"], 4.5),
        "rtc.address": ("10.1.2.4", ["--rtc-address", "10.1.2.4"], "10.1.2.4"),
        "rtc.port": ("2345", ["--rtc-port", "2345"], 2345),
        "rtc.workers": ("3", ["--rtc-workers", "3"], 3),
        "rtc.spreadRoomAfter": ("5", ["--rtc-spread-room-after", "5"], 5),
        "rtc.announceIPs": ("10.0.0.1,10.0.0.2", ["--announce-ip", "10.0.0.1", "--announce-ip", "10.0.0.2"], ["10.0.0.1", "10.0.0.2"]),
        "rtc.consentTimeoutSeconds": ("12.5", ["--consent-timeout", "12.5"], 12.5),
        "rtc.iceTcp": ("false", ["--no-ice-tcp"], false),
        "rooms.autoCreate": ("false", ["--no-auto-create"], false),
        "rooms.maxParticipantsPerNode": ("77", ["--max-participants-per-node", "77"], 77),
        "rooms.maxParticipantsLimit": ("40", ["--max-participants-limit", "40"], 40),
        "rooms.defaultMaxParticipants": ("9", ["--default-max-participants", "9"], 9),
        "rooms.maxTracksPerParticipant": ("4", ["--max-tracks", "4"], 4),
        "rooms.maxMessageBytes": ("2048", ["--max-message-bytes", "2048"], 2048),
        "rooms.maxMessagesPerWindow": ("3", ["--max-messages-per-window", "3"], 3),
        "rooms.reconnectWindowSeconds": ("11", ["--reconnect-window", "11"], 11),
        "rooms.emptyRoomTimeoutSeconds": ("61", ["--empty-room-timeout", "61"], 61),
        "rooms.unusedRoomTimeoutSeconds": ("62", ["--unused-room-timeout", "62"], 62),
        "rooms.messageRateWindowSeconds": ("13", ["--message-rate-window", "13"], 13),
        "signaling.silenceTimeoutSeconds": ("14", ["--silence-timeout", "14"], 14),
        "signaling.pingIntervalSeconds": ("2.5", ["--ping-interval", "2.5"], 2.5),
        "signaling.offerResendSeconds": ("7", ["--offer-resend", "7"], 7),
        "webhooks.retryBaseSeconds": ("3", ["--webhook-retry-base", "3"], 3),
        "webhooks.retryMaxSeconds": ("30", ["--webhook-retry-max", "30"], 30),
        "shutdown.drainTimeoutSeconds": ("4", ["--drain-timeout", "4"], 4),
        "db": ("/tmp/vroom-config-test.sqlite", ["--db", "/tmp/vroom-config-test.sqlite"], "/tmp/vroom-config-test.sqlite"),
        "nodeURL": ("http://10.0.0.5:7880", ["--node-url", "http://10.0.0.5:7880"], "http://10.0.0.5:7880"),
        "apiKey": ("key-from-test", ["--api-key", "key-from-test"], "key-from-test"),
        // Printed masked; without it the server refuses to start (no --dev in these runs).
        "apiSecret": ("secret-from-test", ["--api-secret", "secret-from-test"], "********"),
        "logLevel": ("warning", ["--log-level", "warning"], "warning"),
        "publicURL": ("https://video.example.com", ["--public-url", "https://video.example.com"], "https://video.example.com"),
        "accountSID": ("AC0123456789abcdef0123456789abcdef", ["--account-sid", "AC0123456789abcdef0123456789abcdef"],
                       "AC0123456789abcdef0123456789abcdef"),
        "turn.urls": ("turn:10.0.0.9:3478,turns:turn.example.com:5349", ["--turn-url", "turn:10.0.0.9:3478", "--turn-url", "turns:turn.example.com:5349"],
                      ["turn:10.0.0.9:3478", "turns:turn.example.com:5349"]),
        // Printed masked, as apiSecret.
        "turn.secret": ("turn-secret-from-test", ["--turn-secret", "turn-secret-from-test"], "********"),
        "turn.ttl": ("600", ["--turn-ttl", "600"], 600),
        // `dev` also rewrites the addresses: it gets a run of its own.
        "dev": ("true", ["--dev"], true),
    ] }

    /// A cluster member without `--node-url` or `--public-url` registers
    /// its HTTP address; a wildcard one names no machine, so the first
    /// `--announce-ip` stands for it (PROTOCOL.md section 8).
    @Test func aClusterMembersNodeURLNamesAReachableHost() throws {
        let cluster = ["--api-key", "k", "--api-secret", "s", "--db", "postgres://vroom@127.0.0.1:1/vroom"]
        let announced = try Self.checkConfig(cluster + ["--http-address", "0.0.0.0", "--announce-ip", "10.1.2.3"])
        #expect(announced.status == 0, "\(announced.stderr)")
        #expect(Self.same(announced.value("nodeURL"), "http://10.1.2.3:7880"), "\(announced.stdout)")
        let bound = try Self.checkConfig(cluster + ["--http-address", "10.0.0.7", "--announce-ip", "10.1.2.3"])
        #expect(Self.same(bound.value("nodeURL"), "http://10.0.0.7:7880"), "\(bound.stdout)")
        let given = try Self.checkConfig(cluster + ["--node-url", "https://node1.example.com"])
        #expect(Self.same(given.value("nodeURL"), "https://node1.example.com"), "\(given.stdout)")
    }

    /// README's configuration table: (key, environment variable, flags).
    static func readmeTable() throws -> [(key: String, environment: String, flag: String)] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let header = "| config key | environment | flag | default |"
        let table = try #require(readme.components(separatedBy: header).dropFirst().first)
        var rows: [(String, String, String)] = []
        for line in table.split(separator: "\n").dropFirst() {
            guard line.hasPrefix("| `") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            func code(_ cell: String) -> String { cell.split(separator: "`", omittingEmptySubsequences: false).dropFirst().first.map(String.init) ?? "" }
            rows.append((code(cells[0]), code(cells[1]), code(cells[2])))
        }
        return rows
    }

    @Test func everyKeyOfTheREADMETableIsReadFromItsVariableAndItsFlag() throws {
        let table = try Self.readmeTable()
        #expect(table.count >= 29)
        for required in ["http.address", "rtc.address", "rooms.maxParticipantsLimit", "signaling.pingIntervalSeconds",
                         "rooms.defaultMaxParticipants"] {
            #expect(table.contains { $0.key == required }, "README's table lacks \(required)")
        }
        var environment: [String: String] = [:]
        var flags: [String] = []
        for row in table where row.key != "dev" {
            let sample = try #require(Self.samples[row.key], "no sample value for README key \(row.key)")
            #expect(sample.flags.first == row.flag || row.key == "rooms.autoCreate", "\(row.key): README says \(row.flag)")
            environment[row.environment] = sample.environment
            flags += sample.flags
        }
        let byEnvironment = try Self.checkConfig([], environment: environment)
        #expect(byEnvironment.status == 0, "\(byEnvironment.stderr)")
        let byFlags = try Self.checkConfig(flags)
        #expect(byFlags.status == 0, "\(byFlags.stderr)")
        for row in table where row.key != "dev" {
            let printed = Self.samples[row.key]!.printed
            #expect(Self.same(byEnvironment.value(row.key), printed), "\(row.environment) -> \(row.key): \(String(describing: byEnvironment.value(row.key)))")
            #expect(Self.same(byFlags.value(row.key), printed), "\(row.flag) -> \(row.key): \(String(describing: byFlags.value(row.key)))")
        }

        let dev = try #require(table.first { $0.key == "dev" })
        let devByEnvironment = try Self.checkConfig([], environment: [dev.environment: "true"])
        let devByFlag = try Self.checkConfig([dev.flag])
        for run in [devByEnvironment, devByFlag] {
            #expect(run.status == 0, "\(run.stderr)")
            #expect(Self.same(run.value("dev"), true))
            #expect(Self.same(run.value("apiKey"), "devkey"))
            #expect(Self.same(run.value("http.address"), "127.0.0.1"))
        }
    }

    @Test func anInvalidLogLevelStopsTheServerInEveryLayer() throws {
        let file = try Self.writeConfig(#"{"logLevel": "loud"}"#)
        defer { try? FileManager.default.removeItem(at: file) }
        let runs = [
            try Self.checkConfig(["--dev", "--log-level", "verbose"]),
            try Self.checkConfig(["--dev"], environment: ["VROOM_LOG_LEVEL": "INFO!"]),
            try Self.checkConfig(["--dev", "--config", file.path]),
        ]
        for run in runs {
            #expect(run.status != 0)
            #expect(run.stderr.contains("logLevel (--log-level, VROOM_LOG_LEVEL) must be one of"), "\(run.stderr)")
        }
        // The same server with a valid level starts.
        let valid = try Self.checkConfig(["--dev", "--log-level", "notice"])
        #expect(valid.status == 0, "\(valid.stderr)")
        #expect(Self.same(valid.value("logLevel"), "notice"))
    }

    @Test func aValueOfTheWrongTypeIsAnErrorNamingItsKey() throws {
        let byEnvironment = try Self.checkConfig(["--dev"], environment: ["VROOM_RTC_WORKERS": "two"])
        #expect(byEnvironment.status != 0)
        #expect(byEnvironment.stderr.contains("rtc.workers"), "\(byEnvironment.stderr)")

        let file = try Self.writeConfig(#"{"http": {"port": "http"}}"#)
        defer { try? FileManager.default.removeItem(at: file) }
        let byFile = try Self.checkConfig(["--dev", "--config", file.path])
        #expect(byFile.status != 0)
        #expect(byFile.stderr.contains("http.port"), "\(byFile.stderr)")

        let outOfRange = try Self.checkConfig(["--dev"], environment: ["VROOM_HTTP_PORT": "70000"])
        #expect(outOfRange.status != 0)
        #expect(outOfRange.stderr.contains("http.port"), "\(outOfRange.stderr)")
    }

    @Test func turnSettingsAreCheckedAndTheSecretIsNeverPrinted() throws {
        let secret = "turn-secret-that-must-not-print"
        let file = try Self.writeConfig(#"{"turn": {"urls": ["turn:10.0.0.9:3478"], "ttl": 120}}"#)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try Self.checkConfig(["--dev", "--config", file.path], environment: ["VROOM_TURN_SECRET": secret])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.same(run.value("turn.urls"), ["turn:10.0.0.9:3478"]))
        #expect(Self.same(run.value("turn.ttl"), 120))
        #expect(Self.same(run.value("turn.secret"), "********"))
        #expect(!run.stdout.contains(secret) && !run.stderr.contains(secret))
        // Defaults: no URLs, a day.
        let none = try Self.checkConfig(["--dev"])
        #expect(Self.same(none.value("turn.urls"), [String]()))
        #expect(Self.same(none.value("turn.ttl"), 86400))

        let refusals: [([String], [String: String], String)] = [
            (["--dev", "--turn-url", "stun:10.0.0.9:3478", "--turn-secret", "s"], [:], "turn.urls"),
            (["--dev", "--turn-url", "http://10.0.0.9", "--turn-secret", "s"], [:], "turn.urls"),
            (["--dev", "--turn-url", "turn:10.0.0.9:3478"], [:], "turn.secret"),
            (["--dev"], ["VROOM_TURN_URLS": "turn:10.0.0.9:3478", "VROOM_TURN_SECRET": ""], "turn.secret"),
            (["--dev", "--turn-url", "turn:10.0.0.9:3478", "--turn-secret", "s", "--turn-ttl", "0"], [:], "turn.ttl"),
            (["--dev"], ["VROOM_TURN_TTL": "-5"], "turn.ttl"),
            (["--dev"], ["VROOM_TURN_TTL": "9223372036854775807"], "turn.ttl"),
        ]
        for (arguments, environment, key) in refusals {
            let refused = try Self.checkConfig(arguments, environment: environment)
            #expect(refused.status != 0, "\(arguments) \(environment)")
            #expect(refused.stderr.contains(key), "\(arguments): \(refused.stderr)")
        }
    }

    @Test func theDefaultMaxParticipantsMustFitTheLimit() throws {
        let run = try Self.checkConfig(["--dev", "--max-participants-limit", "10", "--default-max-participants", "11"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("rooms.defaultMaxParticipants"), "\(run.stderr)")
        // A lower limit alone lowers the default with it.
        let lowered = try Self.checkConfig(["--dev", "--max-participants-limit", "10"])
        #expect(lowered.status == 0, "\(lowered.stderr)")
        #expect(Self.same(lowered.value("rooms.defaultMaxParticipants"), 10))
    }
}
}
