import Configuration
import Synchronization

/// Collects the lookups that failed while the configuration was read: a
/// value of the wrong type (`VROOM_HTTP_PORT=abc`, `"workers": "two"`) or a
/// file that could not be read. `ConfigReader`'s defaulted getters fall back
/// silently on such failures; this reporter turns them into a startup error.
final class ConfigurationErrors: AccessReporter {
    private let failures = Mutex<[String]>([])

    func report(_ event: AccessEvent) {
        var found: [String] = []
        for provider in event.providerResults {
            if case .failure(let error) = provider.result {
                found.append("\(event.metadata.key): \(provider.providerName): \(error)")
            }
        }
        if found.isEmpty, let error = event.conversionError {
            found.append("\(event.metadata.key): \(error)")
        }
        guard !found.isEmpty else { return }
        failures.withLock { $0.append(contentsOf: found) }
    }

    /// Throws when any lookup failed, naming every failed key.
    func check() throws {
        let all = failures.withLock { $0 }
        guard all.isEmpty else {
            throw ConfigurationError("invalid configuration:\n  " + all.joined(separator: "\n  "))
        }
    }
}

/// A configuration that cannot be used; `vroom-server` prints it and exits 1.
struct ConfigurationError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
