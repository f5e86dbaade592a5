import Foundation

/// A real bottleneck for tests: the kernel's htb shaping the datagrams sent
/// to one UDP port on loopback (a client's downlink), through
/// `scripts/shape.sh`, the script the interop tests use too (this kernel
/// has no netem; INTEROP.md, "Shaping a link").
///
/// Only inside a network namespace the test created (`unshare --net`, lo
/// alone): the script refuses to run where other interfaces exist, and
/// `unavailableReason` says so first, for a test to skip with that message.
///
/// ```swift
/// let shaper = LinkShaper()
/// try shaper.add(port: clientPort, kbit: 500)
/// defer { try? shaper.clear() }
/// try shaper.change(port: clientPort, kbit: 1_000)
/// ```
public struct LinkShaper: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var arguments: [String]
        public var status: Int32
        public var standardError: String
        public var description: String {
            "shape.sh \(arguments.joined(separator: " ")) exited \(status): \(standardError)"
        }
    }

    /// `scripts/shape.sh` of the checkout this file was built from.
    public static let defaultScript = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/shape.sh")

    public let script: URL

    public init(script: URL = LinkShaper.defaultScript) {
        self.script = script
    }

    /// Shapes datagrams to `port` to `kbit` kbit/s, behind a queue of
    /// `queuePackets` (drop-tail).
    public func add(port: UInt16, kbit: Int, queuePackets: Int = 30) throws {
        try run(["add", String(port), String(kbit), String(queuePackets)])
    }

    /// A new rate for a shaped port, mid-test.
    public func change(port: UInt16, kbit: Int) throws {
        try run(["change", String(port), String(kbit)])
    }

    /// Removes every shaping of this namespace's loopback.
    public func clear() throws {
        try run(["clear"])
    }

    /// Nil when this process may shape here: root, in a network namespace
    /// holding only lo. Otherwise why not.
    public static var unavailableReason: String? {
        guard geteuid() == 0 else { return "not root" }
        // /proc/net/dev lists this network namespace's interfaces (after
        // two header lines); /sys/class/net would show the mount's.
        let table = (try? String(contentsOfFile: "/proc/net/dev", encoding: .utf8)) ?? ""
        let interfaces = table.split(separator: "\n").dropFirst(2).compactMap {
            $0.split(separator: ":").first?.trimmingCharacters(in: .whitespaces)
        }
        let others = interfaces.filter { $0 != "lo" }.sorted()
        guard others.isEmpty else {
            return "not in a loopback-only network namespace (also \(others.joined(separator: ", "))): "
                + "run the tests under `unshare --net` after `ip link set lo up`"
        }
        return nil
    }

    private func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = script
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                arguments: arguments, status: process.terminationStatus,
                standardError: String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}
