import AdminAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// `POST /2010-04-01/Accounts/{AccountSid}/Tokens.json`, Twilio's Network
/// Traversal Service (PROTOCOL.md section 9), checked against Twilio's own
/// schema of the resource (docs/reference/twilio_api_v2010_tokens.json).
@Suite struct TokensRouteTests {
    static let turn = TURNConfiguration(
        urls: ["turn:turn.example.com:3478?transport=udp", "turns:turn.example.com:5349?transport=tcp"],
        secret: "tokens-route-secret", ttl: 3600)
    static let account = "AC0123456789abcdef0123456789abcdef"
    static var path: String { "/2010-04-01/Accounts/\(account)/Tokens.json" }

    @Test func createAnswers201InTwiliosShapeWithCredentialsThatVerify() async throws {
        let fixture = try AdminFixture(turn: Self.turn)
        let accountSID = fixture.routes.configuration.accountSID
        try await fixture.app.test(.router) { client in
            let before = Int(Date().timeIntervalSince1970)
            let answer = try await client.call(.post, Self.path, form: [])
            let after = Int(Date().timeIntervalSince1970)
            #expect(answer.status == 201)
            try TwilioSchema.expectConforms(answer.json, to: "api.v2010.account.token", in: TwilioSchema.tokensURL)
            try Self.expectIceServersConform(answer.json)
            #expect(answer.json["account_sid"] as? String == accountSID)
            #expect(answer.json["ttl"] as? String == "3600")
            let username = try #require(answer.json["username"] as? String)
            let password = try #require(answer.json["password"] as? String)
            // `<unix expiry>:<token id>`, the expiry ttl seconds from now.
            let parts = username.split(separator: ":", maxSplits: 1)
            let expiry = try #require(parts.first.flatMap { Int($0) })
            #expect((before + 3600...after + 3600).contains(expiry), "\(username)")
            #expect(parts.count == 2 && parts[1].count == 32)
            #expect(password == TURNConfiguration.password(secret: Self.turn.secret, username: username))
            let servers = try #require(answer.json["ice_servers"] as? [[String: Any]])
            #expect(servers.compactMap { $0["urls"] as? String } == Self.turn.urls)
            #expect(servers.compactMap { $0["url"] as? String } == Self.turn.urls)
            #expect(servers.allSatisfy { $0["username"] as? String == username && $0["credential"] as? String == password })

            // Two tokens have two usernames.
            let again = try await client.call(.post, Self.path, form: [])
            #expect(again.json["username"] as? String != username)
        }
    }

    @Test func ttlFromTheFormSetsTheExpiry() async throws {
        let fixture = try AdminFixture(turn: Self.turn)
        try await fixture.app.test(.router) { client in
            let before = Int(Date().timeIntervalSince1970)
            let answer = try await client.call(.post, Self.path, form: [("Ttl", "120")])
            let after = Int(Date().timeIntervalSince1970)
            #expect(answer.status == 201)
            #expect(answer.json["ttl"] as? String == "120")
            let username = try #require(answer.json["username"] as? String)
            let expiry = try #require(username.split(separator: ":").first.flatMap { Int($0) })
            #expect((before + 120...after + 120).contains(expiry), "\(username)")
            // At most the larger of turn.ttl (3600 here) and a day.
            #expect(try await client.call(.post, Self.path, form: [("Ttl", "86400")]).status == 201)
            for bad in ["0", "-5", "soon", "86401", "9223372036854775807"] {
                let refused = try await client.call(.post, Self.path, form: [("Ttl", bad)])
                #expect(refused.status == 400, "Ttl=\(bad)")
                #expect(refused.code == 20001)
            }
        }
    }

    @Test func withoutTURNTheListIsEmptyAndStillTwiliosShape() async throws {
        let fixture = try AdminFixture()
        try await fixture.app.test(.router) { client in
            let answer = try await client.call(.post, Self.path, form: [])
            #expect(answer.status == 201)
            try TwilioSchema.expectConforms(answer.json, to: "api.v2010.account.token", in: TwilioSchema.tokensURL)
            #expect((answer.json["ice_servers"] as? [Any])?.isEmpty == true)
            #expect(answer.json["username"] is NSNull)
            #expect(answer.json["password"] is NSNull)
            #expect(answer.json["ttl"] as? String == "86400")
        }
    }

    @Test func theRouteNeedsBasicAuth() async throws {
        let fixture = try AdminFixture(turn: Self.turn)
        try await fixture.app.test(.router) { client in
            for authorization in [nil, "Basic " + Data("\(AdminFixture.key):wrong".utf8).base64EncodedString()] as [String?] {
                let answer = try await client.call(.post, Self.path, form: [], authorization: authorization)
                #expect(answer.status == 401)
                #expect(answer.code == 20003)
                #expect(answer.json["username"] == nil)
            }
        }
    }

    /// Each `ice_servers` entry against the schema's item properties (all strings).
    static func expectIceServersConform(_ token: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let schema = try TwilioSchema.properties("api.v2010.account.token", in: TwilioSchema.tokensURL)
        let items = try #require((schema["ice_servers"]?["items"] as? [String: Any])?["properties"] as? [String: [String: Any]])
        let servers = try #require(token["ice_servers"] as? [[String: Any]])
        #expect(!servers.isEmpty, sourceLocation: sourceLocation)
        for server in servers {
            #expect(Set(server.keys).isSubset(of: Set(items.keys)), "\(server.keys)", sourceLocation: sourceLocation)
            for (name, property) in items where property["type"] as? String == "string" {
                #expect(server[name] is String, "ice_servers[].\(name) should be a string", sourceLocation: sourceLocation)
            }
        }
    }
}
