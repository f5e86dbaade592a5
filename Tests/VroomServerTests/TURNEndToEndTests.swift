import Crypto
import Foundation
import Testing
import VroomTesting

/// `joined.iceServers` of a server started with a TURN server configured
/// (PROTOCOL.md section 9): the URLs and a time-limited credential that a
/// TURN server sharing the secret (coturn's `use-auth-secret`) accepts.
extension ServerProcessTests {
@Suite struct TURNEndToEndTests {
    @Test func joinedCarriesTURNCredentialsForTheParticipant() async throws {
        let secret = "e2e-turn-secret"
        let urls = ["turn:127.0.0.1:3478?transport=udp", "turns:turn.example.com:5349"]
        let server = try SignalingEndToEndTests.Server(
            urls.flatMap { ["--turn-url", $0] } + ["--turn-secret", secret, "--turn-ttl", "900"])
        defer { server.stop() }
        let client = try server.client("alice")
        let before = Int(Date().timeIntervalSince1970)
        client.send(["type": "join", "id": "j", "room": "turn-room"])
        let joined = try await client.next("joined")
        let after = Int(Date().timeIntervalSince1970)
        let participant = try #require((joined["participant"] as? [String: Any])?["sid"] as? String)

        let servers = try #require(joined["iceServers"] as? [[String: Any]])
        #expect(servers.count == 1)
        let ice = try #require(servers.first)
        #expect(ice["urls"] as? [String] == urls)
        let username = try #require(ice["username"] as? String)
        let credential = try #require(ice["credential"] as? String)
        // `<unix expiry>:<participant SID>`, the expiry turn.ttl from now.
        let parts = username.split(separator: ":", maxSplits: 1).map(String.init)
        #expect(parts.count == 2 && parts.last == participant, "\(username)")
        let expiry = try #require(parts.first.flatMap { Int($0) })
        #expect((before + 900...after + 900).contains(expiry), "\(username)")
        // base64(HMAC-SHA1(secret, username)), computed here on its own.
        let mac = HMAC<Insecure.SHA1>.authenticationCode(for: Data(username.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        #expect(credential == Data(mac).base64EncodedString())
        let forged = HMAC<Insecure.SHA1>.authenticationCode(for: Data(username.utf8), using: SymmetricKey(data: Data("other".utf8)))
        #expect(credential != Data(forged).base64EncodedString())
        await client.close()
    }
}
}
