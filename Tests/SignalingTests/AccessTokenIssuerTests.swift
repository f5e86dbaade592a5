import AccessTokens
import Foundation
import Testing

@testable import Signaling

@Suite struct AccessTokenIssuerTests {
    let now = TokenFactory.now

    @Test func issuedTokenVerifies() async throws {
        let issuer = AccessTokenIssuer(apiKey: "SKalpha", apiSecret: "alpha-secret")
        let token = try await issuer.sign(identity: "alice", room: "standup", ttl: 600, now: now, tokenID: "j1")
        let verified = try await AccessTokenVerifier(keys: TokenFactory.keys).verify(token, now: now)
        #expect(
            verified
                == AccessToken(
                    apiKey: "SKalpha", identity: "alice", roomGrant: "standup", subject: "SKalpha", tokenID: "j1",
                    notBefore: nil, expiresAt: now.addingTimeInterval(600)))
    }

    @Test func issuedTokenHasTheDocumentedShape() async throws {
        let issuer = AccessTokenIssuer(apiKey: "SKalpha", apiSecret: "alpha-secret")
        let token = try await issuer.sign(
            identity: "bob", ttl: 60, now: now.addingTimeInterval(0.9), notBefore: now, subject: "AC1", tokenID: "j2")
        let parts = token.split(separator: ".")
        #expect(parts.count == 3)
        let header = try #require(Base64URL.decode(parts[0]).flatMap(JSONValue.parse))
        #expect(header["alg"] == .string("HS256"))
        #expect(header["kid"] == .string("SKalpha"))
        let payload = try #require(Base64URL.decode(parts[1]).flatMap(JSONValue.parse))
        #expect(
            payload
                == JSONValue.parse(
                    #"{"iss":"SKalpha","sub":"AC1","jti":"j2","nbf":1763700000,"exp":1763700060,"grants":{"identity":"bob"}}"#))
    }

    /// What `vroom-loadtest` mints (it used to sign by hand): valid from 10 s
    /// before now, `sub` naming the tool, a room grant; the server accepts it.
    @Test func loadTesterTokenHasTheProtocolsClaimsAndVerifies() async throws {
        let issuer = AccessTokenIssuer(apiKey: "devkey", apiSecret: "devsecret")
        let token = try await issuer.sign(
            identity: "s1-r0", room: "loadtest-abc-0", ttl: 3600.5, now: now, notBefore: now.addingTimeInterval(-10),
            subject: "vroom-loadtest", tokenID: "j1")
        let parts = token.split(separator: ".")
        let header = try #require(Base64URL.decode(parts[0]).flatMap(JSONValue.parse))
        #expect(header["alg"] == .string("HS256") && header["kid"] == .string("devkey"))
        let payload = try #require(Base64URL.decode(parts[1]).flatMap(JSONValue.parse))
        #expect(
            payload
                == JSONValue.parse(
                    #"{"iss":"devkey","sub":"vroom-loadtest","jti":"j1","nbf":1763699990,"exp":1763703600,"grants":{"identity":"s1-r0","video":{"room":"loadtest-abc-0"}}}"#))
        let verified = try await AccessTokenVerifier(keys: ["devkey": "devsecret"]).verify(token, now: now)
        #expect(verified.roomGrant == "loadtest-abc-0" && verified.identity == "s1-r0")
        let error = await #expect(throws: AccessTokenError.self) {
            try await AccessTokenVerifier(keys: ["devkey": "other"]).verify(token, now: self.now)
        }
        #expect(error?.code == .signatureInvalid)
    }

    @Test func tokenExpiresAfterItsTTLPlusLeeway() async throws {
        let issuer = AccessTokenIssuer(apiKey: "SKalpha", apiSecret: "alpha-secret")
        let token = try await issuer.sign(identity: "alice", ttl: 60, now: now)
        let verifier = AccessTokenVerifier(keys: TokenFactory.keys)
        _ = try await verifier.verify(token, now: now.addingTimeInterval(90))
        let error = await #expect(throws: AccessTokenError.self) {
            try await verifier.verify(token, now: now.addingTimeInterval(91))
        }
        #expect(error?.code == .expired)
    }

    @Test func tokenIDsDifferByDefault() async throws {
        let issuer = AccessTokenIssuer(apiKey: "devkey", apiSecret: "devsecret")
        let verifier = AccessTokenVerifier(keys: ["devkey": "devsecret"])
        let a = try await verifier.verify(try await issuer.sign(identity: "a", now: now), now: now)
        let b = try await verifier.verify(try await issuer.sign(identity: "a", now: now), now: now)
        #expect(a.tokenID != nil && a.tokenID != b.tokenID)
    }

    @Test func aTokenForOneKeyDoesNotVerifyForAnother() async throws {
        let issuer = AccessTokenIssuer(apiKey: "SKalpha", apiSecret: "alpha-secret")
        let token = try await issuer.sign(identity: "alice", now: now)
        let error = await #expect(throws: AccessTokenError.self) {
            try await AccessTokenVerifier(keys: ["SKalpha": "other-secret"]).verify(token, now: self.now)
        }
        #expect(error?.code == .signatureInvalid)
    }
}
