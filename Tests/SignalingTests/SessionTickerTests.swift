import AccessTokens
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import Logging
import MediaIO
import Node
import Testing

@testable import Signaling

/// One task ticks every session of an endpoint (`SessionTicker`): each
/// silent session is still cut with 53002 on its own, a session that ends
/// leaves the ticker, and the task ends with the last one.
@Suite struct SessionTickerTests {
    @Test func oneTickerCutsEachSilentSession() async throws {
        try await withEndpoint(silenceTimeout: 1.5) { endpoint, client, issuer in
            // Three clients join 300 ms apart, then say nothing.
            let codes = try await withThrowingTaskGroup(of: String.self) { group in
                for (index, identity) in ["ann", "bob", "cy"].enumerated() {
                    let token = try await issuer.sign(identity: identity, room: nil, ttl: 600)
                    group.addTask {
                        try await Task.sleep(for: .milliseconds(300 * index))
                        return try await session(client, token: token, until: #""type":"disconnected""#).last ?? ""
                    }
                }
                // Without a tick nothing would end them.
                group.addTask {
                    try await Task.sleep(for: .seconds(15))
                    return "no 53002 within 15 s"
                }
                var codes: [String] = []
                for try await last in group {
                    codes.append(last)
                    if codes.count == 3 || last.hasPrefix("no 53002") { break }
                }
                group.cancelAll()
                return codes
            }
            #expect(codes.count == 3)
            for last in codes { #expect(last.contains(#""code":53002"#), "\(last)") }
            try await expectTickerEmpty(endpoint)
        }
    }

    /// A client that closes its socket leaves the ticker at once, long
    /// before the silence rule (60 s here) would have ended it.
    @Test func aClosedSessionLeavesTheTicker() async throws {
        try await withEndpoint(silenceTimeout: 60) { endpoint, client, issuer in
            let token = try await issuer.sign(identity: "dee", room: nil, ttl: 600)
            let frames = try await session(client, token: token, until: #""type":"joined""#)
            #expect(frames.last?.contains(#""type":"joined""#) == true, "\(frames)")
            try await expectTickerEmpty(endpoint)
        }
    }

    /// The ticker forgets every session and its task ends, within 5 s.
    func expectTickerEmpty(_ endpoint: SignalingEndpoint) async throws {
        var waited = 0
        while endpoint.ticker.isRunning || endpoint.ticker.count > 0, waited < 50 {
            try await Task.sleep(for: .milliseconds(100))
            waited += 1
        }
        #expect(endpoint.ticker.count == 0)
        #expect(!endpoint.ticker.isRunning)
    }

    /// A WebSocket session that joins room `quiet` and reads until a frame
    /// contains `until`, then closes; the text frames it read.
    func session(_ client: TestClientProtocol, token: String, until: String) async throws -> [String] {
        let frames = FrameLog()
        try await client.ws("/v1/signal?access_token=\(token)") { inbound, outbound, _ in
            try await outbound.write(.text(#"{"type":"join","id":"1","room":"quiet"}"#))
            for try await message in inbound.messages(maxSize: 1 << 20) {
                guard case .text(let text) = message else { continue }
                frames.append(text)
                if text.contains(until) { break }
            }
        }
        return frames.all
    }

    func withEndpoint(
        silenceTimeout: TimeInterval,
        _ body: @Sendable (SignalingEndpoint, any TestClientProtocol, AccessTokenIssuer) async throws -> Void
    ) async throws {
        let plane = try MediaPlane(
            configuration: MediaConfiguration(bindAddress: "127.0.0.1", basePort: 0, workers: 1),
            logger: Logger(label: "test.media"), events: { _ in })
        plane.start()
        var settings = SignalingSettings()
        settings.silenceTimeout = silenceTimeout
        let endpoint = SignalingEndpoint(
            node: Node(media: RoomMedia(plane: plane)), verifier: AccessTokenVerifier(keys: ["SKkey": "secret"]),
            settings: settings)
        let router = Router(context: BasicRequestContext.self)
        endpoint.register(on: router)
        let app = Application(
            router: router, server: endpoint.httpServer, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        let issuer = AccessTokenIssuer(apiKey: "SKkey", apiSecret: "secret")
        do {
            try await app.test(.live) { client in try await body(endpoint, client, issuer) }
        } catch {
            await plane.stop()
            throw error
        }
        await plane.stop()
    }
}
