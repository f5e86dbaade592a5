import AsyncHTTPClient
import Foundation
import LoadTestCore
import NIOCore

/// `--processes N`: the run spread over N processes of this tool, each
/// with a contiguous share of the rooms (`--room-offset`), joining at its
/// share of `--ramp`, and printing its observations (`--emit-observations`);
/// this process scrapes the server before and after them all and merges
/// what they saw into one run. One process's event loops, allocator and
/// Swift runtime stop being every participant's bottleneck.
struct SpreadRunner: Sendable {
    let configuration: LoadTestConfiguration
    /// This process's own arguments, without the executable.
    let arguments: [String]

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func observe() async throws -> RunObservations {
        try await LoadRunner.withClient(threads: 1) { _, http in try await observe(http: http) }
    }

    private func observe(http: HTTPClient) async throws -> RunObservations {
        let c = configuration
        let baseURL = LoadRunner.trimmed(c.url)
        let scraper = MetricsScraper(http: http, baseURL: baseURL)
        var metricsError: String?
        var metricsBefore: MetricsSnapshot?
        do { metricsBefore = try await scraper.scrape() } catch { metricsError = "before the run: \(error)" }
        let cpuBefore = c.serverPID.flatMap(ProcessCPUTime.read(pid:))
        let clock = ContinuousClock()
        let scrapeStart = clock.now

        let children = try Self.shares(rooms: c.rooms, processes: c.processes).map { share in
            try Child(arguments: childArguments(share), index: share.index)
        }
        // Awaited together: the first that ends without its observations
        // stops the others at once.
        let shares = try await withThrowingTaskGroup(of: (Int, RunObservations).self) { group in
            for child in children {
                group.addTask {
                    let (status, output) = await child.finish()
                    guard let share = try? RunObservations.decoder().decode(RunObservations.self, from: output) else {
                        throw Failure(description: "process \(child.index + 1) of \(c.processes) exited \(status) without its observations")
                    }
                    return (child.index, share)
                }
            }
            var byIndex: [Int: RunObservations] = [:]
            do {
                for try await (index, share) in group { byIndex[index] = share }
            } catch {
                for child in children { child.stop() }
                throw error
            }
            return byIndex.sorted { $0.key < $1.key }.map(\.value)
        }

        var metricsAfter: MetricsSnapshot?
        do { metricsAfter = try await scraper.scrape() } catch { metricsError = (metricsError.map { $0 + "; " } ?? "") + "after the run: \(error)" }
        var observations = try RunObservations.merged(shares, configuration: c)
        observations.metricsBefore = metricsBefore
        observations.metricsAfter = metricsAfter
        observations.metricsError = [metricsError, observations.metricsError].compactMap { $0 }.joined(separator: "; ").nilIfEmpty
        observations.scrapeSeconds = LoadRunner.seconds(clock.now - scrapeStart)
        observations.cpuBefore = cpuBefore
        observations.cpuAfter = c.serverPID.flatMap(ProcessCPUTime.read(pid:))
        return observations
    }

    /// Process `index` runs `rooms` rooms from `offset`.
    struct Share: Equatable {
        var index: Int
        var rooms: Int
        var offset: Int
    }

    /// `rooms` over `processes`, contiguous, the first ones one larger when it does not divide.
    static func shares(rooms: Int, processes: Int) -> [Share] {
        var offset = 0
        return (0..<processes).map { index in
            let count = rooms / processes + (index < rooms % processes ? 1 : 0)
            defer { offset += count }
            return Share(index: index, rooms: count, offset: offset)
        }
    }

    /// This process's arguments without what the parent does itself (the
    /// report, the server's CPU, the spreading), then the share's own
    /// (later flags win).
    func childArguments(_ share: Share) -> [String] {
        let c = configuration
        let dropped: Set<String> = ["--processes", "--server-pid", "--merge"]
        let droppedFlags: Set<String> = ["--json", "--emit-observations"]
        var out: [String] = []
        var skipNext = false
        for argument in arguments {
            if skipNext {
                skipNext = false
                continue
            }
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if droppedFlags.contains(argument) { continue }
            if dropped.contains(name) {
                skipNext = !argument.contains("=")
                continue
            }
            out.append(argument)
        }
        let threads = c.threads ?? max(1, LoadTestConfiguration.defaultThreads(cores: System.coreCount) / c.processes)
        out += [
            "--rooms", String(share.rooms), "--room-offset", String(c.roomOffset + share.offset),
            "--ramp", String(c.ramp / Double(c.processes)), "--threads", String(threads),
            "--emit-observations", "--quiet",
        ]
        return out
    }

    /// One child process: its stdout read to its end by a thread of its
    /// own (in order, and never a full pipe), its stderr passed through.
    final class Child: @unchecked Sendable {
        // @unchecked Sendable: `output` is only touched under `lock`; the
        // Process is started once and then only read.
        let index: Int
        private let process = Process()
        private let lock = NSLock()
        private var output: Data?

        init(arguments: [String], index: Int) throws {
            self.index = index
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            process.arguments = arguments
            let stdout = Pipe()
            process.standardOutput = stdout
            process.standardError = FileHandle.standardError
            try process.run()
            Thread { [self] in
                let data = stdout.fileHandleForReading.readDataToEndOfFile()
                lock.withLock { output = data }
            }.start()
        }

        /// Waits for the exit and the end of its output (polled:
        /// waitUntilExit can hang off the main thread on Linux); its status
        /// and all it printed.
        func finish() async -> (Int32, Data) {
            while process.isRunning || lock.withLock({ output == nil }) { try? await Task.sleep(for: .milliseconds(100)) }
            return (process.terminationStatus, lock.withLock { output ?? Data() })
        }

        func stop() {
            if process.isRunning { process.terminate() }
        }
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
