import Configuration
import Foundation

/// The layers of `vroom-server`'s configuration, highest first (README,
/// "Running the server"):
///
/// 1. the command-line flags that were given;
/// 2. `VROOM_*` environment variables, one for every key: the key's
///    components in upper case joined by `_`, camelCase split
///    (`rooms.maxParticipantsLimit` is `VROOM_ROOMS_MAX_PARTICIPANTS_LIMIT`,
///    `rtc.announceIPs` is `VROOM_RTC_ANNOUNCE_IPS`, comma-separated);
/// 3. the JSON file named by `--config` or `VROOM_CONFIG`;
/// 4. the defaults in `ServerConfiguration`.
struct ConfigurationSources {
    var flags: [AbsoluteConfigKey: ConfigValue]
    var configFile: String?
    var environment: [String: String]

    /// The environment variable that names the config file when `--config` does not.
    static let configFileVariable = "VROOM_CONFIG"

    func read() async throws -> ServerConfiguration {
        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "flags", values: flags),
            EnvironmentVariablesProvider(
                environmentVariables: environment, secretsSpecifier: .specific(["VROOM_API_SECRET", "VROOM_DB", "VROOM_TURN_SECRET"])
            ).prefixKeys(with: "vroom"),
        ]
        if let path = configFile ?? environment[Self.configFileVariable] {
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw ConfigurationError("cannot read the config file \(path)")
            }
            do {
                // The path goes through a reader because FileProvider takes
                // a swift-system FilePath, whose module we would otherwise import.
                let location = ConfigReader(provider: InMemoryProvider(values: ["filePath": .init(.string(path), isSecret: false)]))
                providers.append(try await FileProvider<JSONSnapshot>(config: location))
            } catch {
                throw ConfigurationError("the config file \(path) is not a JSON object of settings: \(error)")
            }
        }
        let errors = ConfigurationErrors()
        let reader = ConfigReader(providers: providers, accessReporter: errors)
        return try ServerConfiguration(reading: reader, errors: errors)
    }
}
