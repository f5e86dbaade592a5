import Synchronization

/// The `vroom-server` processes started while a watch is open, so that a
/// failing test can show what its servers logged (they are often stopped,
/// by a `defer`, before the failure is reported).
public final class ServerLogWatch: Sendable {
    private struct State {
        var watches = 0
        var servers: [ServerProcess] = []
    }

    private static let state = Mutex(State())
    private let first: Int

    private init(first: Int) { self.first = first }

    /// Starts recording the servers started from now on.
    public static func open() -> ServerLogWatch {
        state.withLock { state in
            state.watches += 1
            return ServerLogWatch(first: state.servers.count)
        }
    }

    /// Stops this watch; the last one to close forgets the servers.
    public func close() {
        Self.state.withLock { state in
            state.watches -= 1
            if state.watches == 0 { state.servers.removeAll() }
        }
    }

    static func started(_ server: ServerProcess) {
        state.withLock { state in
            if state.watches > 0 { state.servers.append(server) }
        }
    }

    /// The last `lines` lines each server started since `open` logged.
    public func report(lines: Int = 200) -> String {
        let servers = Self.state.withLock { Array($0.servers.dropFirst(first)) }
        return servers.map { server in
            let log = server.output.split(separator: "\n", omittingEmptySubsequences: false)
            let arguments = server.process.arguments?.joined(separator: " ") ?? ""
            return "---- vroom-server pid \(server.process.processIdentifier) \(arguments), last \(min(lines, log.count)) of \(log.count) lines:\n"
                + log.suffix(lines).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
