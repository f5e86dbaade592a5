import Foundation
import Testing
import VroomTesting

@testable import Signaling

/// `vroom-server token` (PROTOCOL.md section 2), run as the built binary.
@Suite(.serialized) struct TokenCommandTests {
    enum CommandError: Error { case timedOut }

    /// Runs `vroom-server arguments` with `environment` added; returns status and stdout.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = try BuiltProduct.url(named: "vroom-server")
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["VROOM_API_KEY"] = nil
        env["VROOM_API_SECRET"] = nil
        env.merge(environment) { _, new in new }
        process.environment = env
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        // Polls instead of waitUntilExit, which can hang on Linux off the main thread.
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        guard !process.isRunning else {
            process.terminate()
            throw CommandError.timedOut
        }
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func devTokenVerifiesWithDevKey() async throws {
        let (status, output) = try Self.run(["token", "--dev", "--identity", "alice", "--room", "standup", "--ttl", "120"])
        #expect(status == 0)
        let lines = output.split(separator: "\n")
        #expect(lines.count == 1)
        let token = String(try #require(lines.first))
        let verified = try await AccessTokenVerifier(keys: ["devkey": "devsecret"]).verify(token, now: Date())
        #expect(verified.identity == "alice")
        #expect(verified.roomGrant == "standup")
        #expect(verified.apiKey == "devkey")
        let lifetime = verified.expiresAt.timeIntervalSinceNow
        #expect(lifetime > 60 && lifetime <= 121)
    }

    @Test func configuredKeyFromTheEnvironmentSignsWithoutRoomGrant() async throws {
        let (status, output) = try Self.run(
            ["token", "--identity", "bob"], environment: ["VROOM_API_KEY": "SKenv", "VROOM_API_SECRET": "env-secret"])
        #expect(status == 0)
        let token = output.trimmingCharacters(in: .whitespacesAndNewlines)
        let verified = try await AccessTokenVerifier(keys: ["SKenv": "env-secret"]).verify(token, now: Date())
        #expect(verified.identity == "bob" && verified.roomGrant == nil && verified.apiKey == "SKenv")
        // Default lifetime: one hour.
        #expect(abs(verified.expiresAt.timeIntervalSinceNow - 3600) < 60)
    }

    @Test func withoutKeyOrIdentityItFails() throws {
        #expect(try Self.run(["token", "--identity", "bob"]).0 != 0)
        #expect(try Self.run(["token", "--dev"]).0 != 0)
        #expect(try Self.run(["token", "--dev", "--identity", "a", "--ttl", "0"]).0 != 0)
    }
}
