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

/// Which requests ``SignalingEndpoint/httpServer`` upgrades: a WebSocket
/// upgrade of `/v1/signal` (with its query) runs a session; a plain GET of
/// it gets 426; an upgrade of any other path is not taken, and the router's
/// routes still answer.
@Suite struct SignalingUpgradeTests {
    @Test func onlyTheSignalingPathIsUpgraded() async throws {
        let plane = try MediaPlane(
            configuration: MediaConfiguration(bindAddress: "127.0.0.1", basePort: 0, workers: 1),
            logger: Logger(label: "test.media"), events: { _ in })
        plane.start()
        let endpoint = SignalingEndpoint(
            node: Node(media: RoomMedia(plane: plane)), verifier: AccessTokenVerifier(keys: ["SKkey": "secret"]))
        let router = Router(context: BasicRequestContext.self)
        router.get("/other") { _, _ in "other" }
        endpoint.register(on: router)
        let app = Application(
            router: router, server: endpoint.httpServer, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        let token = try await AccessTokenIssuer(apiKey: "SKkey", apiSecret: "secret").sign(identity: "ann", room: nil, ttl: 600)
        try await app.test(.live) { client in
            try await client.execute(uri: "/v1/signal", method: .get) { response in
                #expect(response.status == .upgradeRequired)
                #expect(response.headers[.upgrade] == "websocket")
            }
            try await client.execute(uri: "/other", method: .get) { #expect($0.status == .ok) }

            let frames = FrameLog()
            try await client.ws("/v1/signal?access_token=\(token)") { inbound, outbound, _ in
                try await outbound.write(.text(#"{"type":"join","id":"1","room":"r"}"#))
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let text) = message else { continue }
                    frames.append(text)
                    if text.contains(#""type":"joined""#) { break }
                }
            }
            #expect(frames.all.last?.contains(#""type":"joined""#) == true, "\(frames.all)")

            await #expect(throws: (any Error).self) {
                try await client.ws("/other") { _, _, _ in }
            }
        }
        await plane.stop()
    }

    @Test func theTokenComesFromTheBearerHeaderOrTheQuery() {
        #expect(SignalingEndpoint.accessToken(authorization: "Bearer abc ", target: "/v1/signal?access_token=q") == "abc")
        #expect(SignalingEndpoint.accessToken(authorization: nil, target: "/v1/signal?access_token=q") == "q")
        #expect(SignalingEndpoint.accessToken(authorization: "Basic x", target: "/v1/signal") == nil)
        #expect(SignalingEndpoint.isSignalingPath("/v1/signal?access_token=q"))
        #expect(!SignalingEndpoint.isSignalingPath("/v1/signalx"))
    }
}
