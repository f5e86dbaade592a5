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

/// A placement that puts the room "far" on another node.
struct FarRoomPlacement: RoomPlacement {
    static let otherNode = "ws://127.0.0.1:9/v1/signal"

    func locate(room: String) async -> RoomLocation {
        room == "far" ? .elsewhere(signalingURL: Self.otherNode) : .here
    }

    func claim(uniqueName: String) async -> RoomLocation { await locate(room: uniqueName) }
}

/// `Node`'s room placement as Signaling applies it (PROTOCOL.md section 8):
/// a join to a room that lives on another node gets `redirect` and the
/// socket closes; a join to a room here is admitted.
@Suite struct RoomPlacementTests {
    @Test func aJoinToARoomOnAnotherNodeIsRedirectedAndOneHereIsAdmitted() async throws {
        let plane = try MediaPlane(
            configuration: MediaConfiguration(bindAddress: "127.0.0.1", basePort: 0, workers: 1),
            logger: Logger(label: "test.media"), events: { _ in })
        plane.start()
        let node = Node(media: RoomMedia(plane: plane), placement: FarRoomPlacement())
        let endpoint = SignalingEndpoint(node: node, verifier: AccessTokenVerifier(keys: ["SKkey": "secret"]))
        let router = Router(context: BasicRequestContext.self)
        endpoint.register(on: router)
        let app = Application(
            router: router, server: endpoint.httpServer,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        let issuer = AccessTokenIssuer(apiKey: "SKkey", apiSecret: "secret")
        try await app.test(.live) { client in
            for room in ["far", "near"] {
                let token = try await issuer.sign(identity: "alice-\(room)", room: nil, ttl: 600)
                let frames = FrameLog()
                try await client.ws("/v1/signal?access_token=\(token)") { inbound, outbound, _ in
                    try await outbound.write(.text(#"{"type":"join","id":"1","room":"\#(room)"}"#))
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message else { continue }
                        frames.append(text)
                        // The redirect closes the socket; a joined one stays open.
                        if text.contains(#""type":"joined""#) { break }
                    }
                }
                let received = try frames.all.map { try JSONDecoder().decode(Frame.self, from: Data($0.utf8)) }
                if room == "far" {
                    #expect(received == [Frame(type: "redirect", url: FarRoomPlacement.otherNode)])
                } else {
                    #expect(received.last?.type == "joined", "\(received)")
                }
            }
            let rooms = await node.rooms.read { $0.allRooms().map(\.uniqueName) }
            #expect(rooms == ["near"], "a redirected join creates no room here")
        }
        await plane.stop()
    }
}

/// The fields of a server frame this test reads.
struct Frame: Decodable, Equatable {
    var type: String
    var url: String?
}

/// Frames a WebSocket handler saw (the handler runs on another task).
final class FrameLog: @unchecked Sendable {
    // @unchecked Sendable: `frames` is only touched under `lock`.
    private let lock = NSLock()
    private var frames: [String] = []

    func append(_ frame: String) { lock.withLock { frames.append(frame) } }
    var all: [String] { lock.withLock { frames } }
}
