import ArgumentParser
import Foundation
import LoadTestCore
import Logging

/// `vroom-loadtest`: many real participants (VP8 + Opus over DTLS-SRTP)
/// against one server, and a report of what they and the server measured.
@main
struct LoadTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vroom-loadtest",
        abstract: "Load a Vroom server with real participants and report what they received.",
        discussion: """
            Creates --rooms rooms through the REST API, joins --publishers and --subscribers per \
            room at --ramp joins per second, measures for --duration seconds and prints a report \
            (a table, or JSON with --json). Exits 1 when a room or join failed, a participant \
            dropped, a track's loss passed --max-loss, or a track reached no receiver; 3 when such \
            failures came while the load tester itself was saturated (they are inconclusive).
            See loadtest/README.md for what each number means.
            """)

    @OptionGroup var options: LoadTestOptions

    func validate() throws {
        guard Logger.Level(rawValue: options.logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    func run() async throws {
        // swift-log writes to stdout by default, which would break --json;
        // and a hundred participants' info lines would drown the report.
        let level = Logger.Level(rawValue: options.logLevel) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        var scenario: Scenario?
        var scenarioName: String?
        if let name = options.scenario {
            let directories = Scenario.searchDirectories(
                environment: ProcessInfo.processInfo.environment,
                currentDirectory: FileManager.default.currentDirectoryPath,
                executablePath: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path)
            do {
                let path = try Scenario.locate(name, in: directories)
                scenario = try Scenario.decode(try Data(contentsOf: URL(fileURLWithPath: path)), path: path)
                scenarioName = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            } catch {
                throw ValidationError("\(error)")
            }
        }
        let configuration: LoadTestConfiguration
        do {
            configuration = try LoadTestConfiguration.resolve(
                options: options, scenario: scenario, scenarioName: scenarioName,
                environment: ProcessInfo.processInfo.environment)
        } catch let invalid as LoadTestConfiguration.Invalid {
            throw ValidationError(invalid.reason)
        }

        let observations: RunObservations
        do {
            if !configuration.mergeFiles.isEmpty {
                let shares = try configuration.mergeFiles.map { path in
                    try RunObservations.decoder().decode(
                        RunObservations.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
                }
                var whole = configuration
                whole.rooms = shares.reduce(0) { $0 + $1.rooms.count }
                observations = try RunObservations.merged(shares, configuration: whole)
            } else if configuration.processes > 1 {
                observations = try await SpreadRunner(
                    configuration: configuration, arguments: Array(CommandLine.arguments.dropFirst())
                ).observe()
            } else {
                observations = try await LoadRunner(configuration: configuration).observe()
            }
        } catch {
            FileHandle.standardError.write(Data("vroom-loadtest: \(error)\n".utf8))
            throw ExitCode(2)
        }
        if configuration.emitObservations {
            FileHandle.standardOutput.write(try RunObservations.encoder().encode(observations) + Data("\n".utf8))
            return
        }
        let report = LoadTestReport(observations: observations)

        let table = ReportTable.render(report)
        if configuration.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            FileHandle.standardError.write(Data(table.utf8))
            FileHandle.standardOutput.write(try encoder.encode(report) + Data("\n".utf8))
        } else {
            FileHandle.standardOutput.write(Data(table.utf8))
        }
        if report.verdict.inconclusive { throw ExitCode(3) }
        if !report.verdict.passed { throw ExitCode(1) }
    }
}
