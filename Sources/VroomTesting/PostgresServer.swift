import Foundation

/// A private PostgreSQL server for tests (issue 14): `initdb` in a temporary
/// directory, listening on 127.0.0.1 at a free port with its socket in that
/// directory, stopped by ``stop()`` (and when the test process exits). It
/// runs the Debian `postgresql` package's own binaries; as root it runs
/// them as the `postgres` user, since PostgreSQL refuses to run as root.
public final class PostgresServer: @unchecked Sendable {
    // @unchecked: every property is set once in init; `stopped` is guarded by `lock`.
    public let port: Int
    public let directory: URL
    private let bin: URL
    private let lock = NSLock()
    private var stopped = false

    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// The superuser the cluster is made with (trust authentication on loopback).
    public static let user = "vroom"

    /// Starts a new server; throws ``Unavailable`` when PostgreSQL is not installed.
    public init() throws {
        bin = try Self.binaries()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vroom-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if getuid() == 0 { try Self.run("/bin/chown", ["-R", "postgres:postgres", directory.path]) }
        let data = directory.appendingPathComponent("data").path
        try Self.run(bin.appendingPathComponent("initdb").path, [
            "-D", data, "-U", Self.user, "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C",
        ], asPostgres: true)
        var lastError: (any Error)?
        for _ in 0..<5 {
            let port = try Self.freeTCPPort()
            do {
                try Self.start(bin: bin, directory: directory, port: port)
                self.port = port
                PostgresServer.register(self)
                return
            } catch {
                lastError = error  // the port was taken meanwhile: another one
            }
        }
        throw lastError ?? Unavailable(description: "could not start PostgreSQL")
    }

    /// `postgres://vroom@127.0.0.1:PORT/<database>?sslmode=disable`.
    public func url(database: String) -> String {
        "postgres://\(Self.user)@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    /// Creates an empty database and returns its URL.
    public func createDatabase(_ name: String = "t\(UUID().uuidString.prefix(8).lowercased())") throws -> String {
        try Self.run(bin.appendingPathComponent("createdb").path, ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, name])
        return url(database: name)
    }

    /// Runs one SQL statement with psql in `database` and returns its rows,
    /// one a line, columns separated by `|` (for tests that look into the
    /// cluster's tables of a server process).
    public func query(_ sql: String, database: String) throws -> String {
        try Self.run(
            bin.appendingPathComponent("psql").path,
            ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, "-d", database, "-At", "-c", sql]
        ).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Holds an exclusive lock on `table` for `seconds` from a psql
    /// session of its own (a database that answers nothing about that
    /// table meanwhile), and returns once the lock is held. The process
    /// ends with the lock.
    public func holdLock(on table: String, seconds: Int, database: String) throws -> Process {
        let psql = Process()
        psql.executableURL = bin.appendingPathComponent("psql")
        psql.arguments = [
            "-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, "-d", database, "-q", "-c",
            "BEGIN; LOCK TABLE \(table) IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(\(seconds)); COMMIT;",
        ]
        psql.standardOutput = FileHandle.nullDevice
        try psql.run()
        let held = """
            SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
            WHERE c.relname = '\(table)' AND l.mode = 'AccessExclusiveLock' AND l.granted
            """
        for _ in 0..<100 {
            if try query(held, database: database) == "1" { return psql }
            Thread.sleep(forTimeInterval: 0.05)
        }
        psql.terminate()
        throw Unavailable(description: "psql did not lock \(table) within 5 s")
    }

    /// Stops the server (pg_ctl stop, fast) and deletes its directory.
    public func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        try? pause()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stops the server without deleting its files, for tests of an outage;
    /// ``restart()`` brings it back on the same port.
    public func pause() throws {
        try Self.run(bin.appendingPathComponent("pg_ctl").path, [
            "-D", directory.appendingPathComponent("data").path, "-m", "fast", "-w", "stop",
        ], asPostgres: true)
    }

    public func restart() throws {
        try Self.start(bin: bin, directory: directory, port: port)
    }

    /// `pg_ctl start` of the cluster in `directory`: loopback only, its socket
    /// in that directory, no fsync (a test's data need not survive a crash).
    private static func start(bin: URL, directory: URL, port: Int) throws {
        try run(bin.appendingPathComponent("pg_ctl").path, [
            "-D", directory.appendingPathComponent("data").path, "-l",
            directory.appendingPathComponent("server.log").path, "-w", "-t", "60",
            "-o", "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200",
            "start",
        ], asPostgres: true)
    }

    deinit { stop() }

    // MARK: - One server per test process

    // nonisolated(unsafe): read and written only under `startedLock`.
    nonisolated(unsafe) private static var started: [PostgresServer] = []
    private static let startedLock = NSLock()

    private static func register(_ server: PostgresServer) {
        startedLock.withLock {
            if started.isEmpty { atexit { PostgresServer.stopAll() } }
            started.append(server)
        }
    }

    private static func stopAll() {
        for server in startedLock.withLock({ started }) { server.stop() }
    }

    private static let sharedLock = NSLock()
    // nonisolated(unsafe): read and written only under `sharedLock`.
    nonisolated(unsafe) private static var sharedServer: Result<PostgresServer, any Error>?

    /// One server for the whole test process, started on first use (each
    /// test takes its own database with ``createDatabase(_:)``).
    public static func shared() throws -> PostgresServer {
        try sharedLock.withLock {
            if let sharedServer { return try sharedServer.get() }
            let result = Result { try PostgresServer() }
            sharedServer = result
            return try result.get()
        }
    }

    // MARK: - Processes

    /// The directory of `initdb` and `pg_ctl`: Debian keeps them off PATH,
    /// under /usr/lib/postgresql/<major>/bin (the newest one wins).
    static func binaries() throws -> URL {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            let bin = root.appendingPathComponent(version).appendingPathComponent("bin")
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        throw Unavailable(description: "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): run scripts/bootstrap.sh")
    }

    /// Runs a command to its end with posix_spawn and waitpid. Not
    /// Foundation's `Process`: its exit monitor missed `pg_ctl start`'s exit
    /// (the server it leaves behind keeps the session), and the test hung.
    @discardableResult
    private static func run(_ executable: String, _ arguments: [String], asPostgres: Bool = false) throws -> String {
        let command = asPostgres && getuid() == 0
            ? ["/usr/sbin/runuser", "-u", "postgres", "--", executable] + arguments
            : [executable] + arguments
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent("vroom-pg-run-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: capture) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, capture.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw Unavailable(description: "cannot run \(command[0]): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOf: capture, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            throw Unavailable(description: "\(command.joined(separator: " ")) failed (status \(status)): \(text)")
        }
        return text
    }

    /// A TCP port nothing listens on now (the kernel's pick on 127.0.0.1).
    public static func freeTCPPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Unavailable(description: "socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw Unavailable(description: "bind() failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
