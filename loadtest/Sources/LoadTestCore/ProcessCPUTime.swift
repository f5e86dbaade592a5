import Foundation

/// A process's CPU time (user + system) from Linux's `/proc/<pid>/stat`,
/// for the server's CPU seconds over a run (`--server-pid`).
public struct ProcessCPUTime: Sendable, Equatable, Codable {
    /// utime + stime, in clock ticks.
    public var ticks: UInt64
    /// Ticks per second (`sysconf(_SC_CLK_TCK)`, 100 on Linux).
    public var ticksPerSecond: UInt64

    public init(ticks: UInt64, ticksPerSecond: UInt64) {
        self.ticks = ticks
        self.ticksPerSecond = ticksPerSecond
    }

    public var seconds: Double { Double(ticks) / Double(ticksPerSecond) }

    /// Reads `/proc/<pid>/stat` now; nil when there is no such process (or no /proc).
    public static func read(pid: Int32) -> ProcessCPUTime? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return nil }
        let hz = sysconf(Int32(_SC_CLK_TCK))
        return parse(stat: text, ticksPerSecond: hz > 0 ? UInt64(hz) : 100)
    }

    /// Parses the text of `/proc/<pid>/stat`: `pid (comm) state ppid ...`,
    /// where utime and stime are fields 14 and 15 (proc(5)). `comm` may hold
    /// spaces and parentheses, so fields are counted after the LAST `)`.
    public static func parse(stat text: String, ticksPerSecond: UInt64) -> ProcessCPUTime? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        // After ")": field 3 (state) is the first; utime is field 14, the 12th.
        let fields = text[text.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 13, let utime = UInt64(fields[11]), let stime = UInt64(fields[12]) else { return nil }
        return ProcessCPUTime(ticks: utime + stime, ticksPerSecond: ticksPerSecond)
    }
}
