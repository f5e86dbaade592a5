import ArgumentParser
import Foundation
import Logging
import VroomClient

/// `vroom-join`: one participant of the Swift SDK, from a shell. It joins a
/// room with a test-pattern camera and a tone, decodes what it receives, and
/// prints once a second a JSON line of what it got from each participant
/// (frames decoded, packets, the tone heard). Scripts and tests use it as
/// the SDK client of a call; it is also the SDK's smallest complete example.
@main
struct VroomJoinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vroom-join",
        abstract: "Join a Vroom room as one Swift SDK participant and report what it receives.",
        discussion: """
            Prints a JSON line a second on stdout: {"seconds", "state", "participants", "received": \
            [{"identity", "track", "kind", "packetsReceived", "framesDecoded", "audioFrequency"}]}. \
            Exits 0 after --duration, 1 when the join fails or the room disconnects it (the code on stderr).
            """)

    @Option(help: "Server base URL (signaling at /v1/signal).")
    var url = "http://127.0.0.1:7880"

    @Option(help: "An access token (PROTOCOL.md section 2). Default: $VROOM_TOKEN (kept out of the process list).")
    var token: String?

    @Option(help: "Room name, when the token names none.")
    var room: String?

    @Option(help: "Seconds to stay in the room.")
    var duration: Double = 30

    @Option(help: "Frequency of the published tone, Hz.")
    var tone: Double = 440

    @Flag(help: "Publish no camera (the tone only).")
    var noVideo = false

    @Option(help: "Log level on stderr: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "warning"

    func validate() throws {
        guard URL(string: url)?.host != nil else { throw ValidationError("--url must be a base URL, e.g. http://127.0.0.1:7880") }
        guard duration > 0 else { throw ValidationError("--duration must be positive") }
        guard accessToken != nil else { throw ValidationError("give a token: --token or VROOM_TOKEN") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level: unknown level \(logLevel)") }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        var options = ConnectOptions(token: accessToken ?? "", roomName: room)
        options.audioTracks = [LocalAudioTrack(name: "microphone", options: AudioTrackOptions(toneFrequency: tone))]
        options.videoTracks = noVideo ? [] : [LocalVideoTrack(name: "camera")]
        let room = Room.connect(to: URL(string: url)!, options: options)
        let ended = Task { () -> VideoError? in
            for await event in room.events {
                switch event {
                case .failedToConnect(let error): return error
                case .disconnected(let error): return error
                default: continue
                }
            }
            return nil
        }
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(Int64(duration * 1000))
        while ContinuousClock.now < deadline {
            try? await Task.sleep(for: .seconds(1))
            if room.state == .disconnected { break }
            print(try await Self.line(room, seconds: Self.seconds(ContinuousClock.now - start)), to: &StandardOutput.shared)
        }
        let disconnectedEarly = room.state == .disconnected
        room.disconnect()
        if disconnectedEarly {
            let error = await ended.value
            FileHandle.standardError.write(Data(
                "vroom-join: \(error.map { "\($0.code) \($0.message)" } ?? "disconnected before --duration")\n".utf8))
            throw ExitCode(1)
        }
        ended.cancel()
    }

    var accessToken: String? { token ?? ProcessInfo.processInfo.environment["VROOM_TOKEN"] }

    /// One report line: the room's state and what each remote track brought.
    static func line(_ room: Room, seconds: Double) async throws -> String {
        let statistics = await room.statistics()
        var received: [Received] = []
        for participant in room.remoteParticipants {
            for publication in participant.trackPublications {
                guard let track = statistics.remoteTrack(sid: publication.trackSid) else { continue }
                received.append(Received(
                    identity: participant.identity, track: publication.trackName, kind: track.kind == .video ? "video" : "audio",
                    packetsReceived: track.packetsReceived, framesDecoded: track.framesDecoded,
                    audioFrequency: track.audioFrequency))
            }
        }
        let line = Line(
            seconds: seconds, state: room.state.rawValue, participants: room.remoteParticipants.map(\.identity).sorted(),
            received: received.sorted { ($0.identity, $0.track) < ($1.identity, $1.track) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(line), as: UTF8.self)
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    struct Line: Encodable {
        var seconds: Double
        var state: String
        var participants: [String]
        var received: [Received]
    }

    struct Received: Encodable {
        var identity: String
        var track: String
        var kind: String
        var packetsReceived: Int
        var framesDecoded: Int
        var audioFrequency: Double?
    }
}

/// Standard output, flushed at each line (a reading script sees each line as it comes).
struct StandardOutput: TextOutputStream {
    // nonisolated(unsafe): written only from the command's one task, in order.
    nonisolated(unsafe) static var shared = StandardOutput()

    mutating func write(_ string: String) {
        FileHandle.standardOutput.write(Data(string.utf8))
    }
}
