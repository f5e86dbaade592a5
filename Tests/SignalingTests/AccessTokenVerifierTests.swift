import Foundation
import Testing

@testable import Signaling

/// PROTOCOL.md section 2 and the 201xx codes of section 4, one rule per test.
@Suite struct AccessTokenVerifierTests {
    let verifier = AccessTokenVerifier(keys: TokenFactory.keys)
    let now = TokenFactory.now

    /// The code `verify` refuses `token` with, or nil if it accepts it.
    func refusal(_ token: String, at time: Date? = nil) async -> AccessTokenError.Code? {
        do {
            _ = try await verifier.verify(token, now: time ?? now)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func validTokenVerifiesWithEveryClaim() async throws {
        let token = try await TokenFactory.token(
            payload: TokenFactory.payload(nbf: .number(1_763_699_000), grants: TokenFactory.grants(room: "standup")))
        let verified = try await verifier.verify(token, now: now)
        #expect(
            verified
                == AccessToken(
                    apiKey: "SKalpha", identity: "alice", roomGrant: "standup", subject: "tests", tokenID: "jti-1",
                    notBefore: Date(timeIntervalSince1970: 1_763_699_000),
                    expiresAt: Date(timeIntervalSince1970: 1_763_703_600)))
    }

    @Test func secondKeyVerifiesWithItsOwnSecret() async throws {
        let token = try await TokenFactory.token(
            header: TokenFactory.header(kid: "SKbeta"), payload: TokenFactory.payload(iss: "SKbeta"),
            secret: "beta-secret-that-is-longer-than-32-bytes!")
        #expect(try await verifier.verify(token, now: now).apiKey == "SKbeta")
    }

    @Test func kidAloneOrIssAloneNamesTheKey() async throws {
        let kidOnly = try await TokenFactory.token(payload: TokenFactory.payload(iss: nil))
        let issOnly = try await TokenFactory.token(header: TokenFactory.header(kid: nil))
        #expect(try await verifier.verify(kidOnly, now: now).apiKey == "SKalpha")
        #expect(try await verifier.verify(issOnly, now: now).apiKey == "SKalpha")
    }

    /// Tokens minted by Python's `hmac` (independent of jwt-kit and of our
    /// key padding): a 9-byte secret, as `devsecret`, and a 72-byte one.
    @Test func tokensFromAnotherImplementationVerify() async throws {
        let short =
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImRldmtleSJ9.eyJpc3MiOiJkZXZrZXkiLCJzdWIiOiJweXRob24iLCJqdGkiOiJweS0xIiwiZXhwIjoxNzYzNzAzNjAwLCJncmFudHMiOnsiaWRlbnRpdHkiOiJhbGljZSIsInZpZGVvIjp7InJvb20iOiJzdGFuZHVwIn19fQ.f1dM2qO2OZ0dOXeFUaMsnUMQ9JL-bG2vDTA-98wfFLk"
        let long =
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6IlNLbG9uZyJ9.eyJpc3MiOiJTS2xvbmciLCJleHAiOjE3NjM3MDM2MDAsIm5iZiI6MTc2MzcwMDAwMCwiZ3JhbnRzIjp7ImlkZW50aXR5IjoiYm9iIn19.la_jEgwXSIh2QE1Z7OLRM2VoJ1htq7cuQhuF-WiAA-o"
        let verifier = AccessTokenVerifier(keys: [
            "devkey": "devsecret",
            "SKlong": "a-much-longer-api-secret-of-more-than-sixty-four-bytes-0123456789abcdef",
        ])
        let alice = try await verifier.verify(short, now: now)
        #expect(alice.identity == "alice" && alice.roomGrant == "standup" && alice.subject == "python")
        let bob = try await verifier.verify(long, now: now)
        #expect(bob.identity == "bob" && bob.roomGrant == nil && bob.notBefore == now)
        // One flipped signature character and neither holds.
        #expect(await Self.code(verifier, String(short.dropLast()) + "A") == .signatureInvalid)
    }

    static func code(_ verifier: AccessTokenVerifier, _ token: String) async -> AccessTokenError.Code? {
        do {
            _ = try await verifier.verify(token, now: TokenFactory.now)
            return nil
        } catch { return error.code }
    }

    // MARK: 20104 / 20105 with 30 s of leeway

    @Test func expiryHasThirtySecondsOfLeeway() async throws {
        let token = try await TokenFactory.token(payload: TokenFactory.payload(exp: .number(1_763_700_000)))
        #expect(await refusal(token, at: now.addingTimeInterval(30)) == nil)
        #expect(await refusal(token, at: now.addingTimeInterval(31)) == .expired)
        #expect(await refusal(token, at: now.addingTimeInterval(3600)) == .expired)
    }

    @Test func expiredTokenStillVerifiesForAResume() async throws {
        let token = try await TokenFactory.token(payload: TokenFactory.payload(exp: .number(1_763_600_000)))
        #expect(await refusal(token) == .expired)
        let resumed = try await verifier.verify(token, now: now, checkingExpiry: false)
        #expect(resumed.identity == "alice")
    }

    @Test func missingOrNonNumericExpIsRefused() async throws {
        #expect(await refusal(try await TokenFactory.token(payload: TokenFactory.payload(exp: nil))) == .expired)
        #expect(
            await refusal(try await TokenFactory.token(payload: TokenFactory.payload(exp: .string("tomorrow"))))
                == .expired)
    }

    @Test func notBeforeHasThirtySecondsOfLeeway() async throws {
        let token = try await TokenFactory.token(payload: TokenFactory.payload(nbf: .number(1_763_700_100)))
        #expect(await refusal(token, at: now.addingTimeInterval(100 - 30)) == nil)
        #expect(await refusal(token, at: now.addingTimeInterval(100 - 31)) == .notYetValid)
        #expect(await refusal(token, at: now) == .notYetValid)
    }

    // MARK: 20107 signature

    @Test func wrongSecretIsASignatureError() async throws {
        let token = try await TokenFactory.token(secret: "not-the-secret")
        #expect(await refusal(token) == .signatureInvalid)
        // The other key's secret does not sign for this key either.
        let crossed = try await TokenFactory.token(secret: "beta-secret-that-is-longer-than-32-bytes!")
        #expect(await refusal(crossed) == .signatureInvalid)
    }

    @Test func tamperedPayloadIsASignatureError() async throws {
        let token = try await TokenFactory.token()
        let parts = token.split(separator: ".")
        let forged = TokenFactory.payload(grants: TokenFactory.grants(identity: "mallory"))
        let tampered = "\(parts[0]).\(TokenFactory.base64url(forged.serialized.utf8)).\(parts[2])"
        #expect(await refusal(tampered) == .signatureInvalid)
        #expect(await refusal("\(parts[0]).\(parts[1]).") == .signatureInvalid)
    }

    // MARK: 20103 issuer

    @Test func unknownKeyIsAnIssuerError() async throws {
        let token = try await TokenFactory.token(
            header: TokenFactory.header(kid: "SKgamma"), payload: TokenFactory.payload(iss: "SKgamma"))
        #expect(await refusal(token) == .issuerInvalid)
        let issOnly = try await TokenFactory.token(
            header: TokenFactory.header(kid: nil), payload: TokenFactory.payload(iss: "SKgamma"))
        #expect(await refusal(issOnly) == .issuerInvalid)
    }

    @Test func kidDifferentFromIssIsAnIssuerError() async throws {
        // Both keys are known; signed with kid's secret, so only the mismatch can refuse it.
        let token = try await TokenFactory.token(
            header: TokenFactory.header(kid: "SKalpha"), payload: TokenFactory.payload(iss: "SKbeta"))
        #expect(await refusal(token) == .issuerInvalid)
    }

    @Test func neitherKidNorIssIsAnIssuerError() async throws {
        let token = try await TokenFactory.token(
            header: TokenFactory.header(kid: nil), payload: TokenFactory.payload(iss: nil))
        #expect(await refusal(token) == .issuerInvalid)
    }

    // MARK: 20101 malformed and algorithms

    @Test func algNoneIsRefusedEvenUnsigned() async throws {
        let header = TokenFactory.base64url(TokenFactory.header(alg: "none").serialized.utf8)
        let payload = TokenFactory.base64url(TokenFactory.payload().serialized.utf8)
        #expect(await refusal("\(header).\(payload).") == .invalid)
        // ... and when signed with the right secret.
        #expect(await refusal(try await TokenFactory.token(header: TokenFactory.header(alg: "none"))) == .invalid)
    }

    @Test(arguments: ["HS512", "HS384", "RS256", "ES256", "hs256", ""])
    func otherAlgorithmsAreRefused(alg: String) async throws {
        let token = try await TokenFactory.token(header: TokenFactory.header(alg: alg))
        #expect(await refusal(token) == .invalid)
    }

    @Test func headerWithoutAlgOrWithCritIsRefused() async throws {
        let noAlg = JSONValue.object([("typ", .string("JWT")), ("kid", .string("SKalpha"))])
        #expect(await refusal(try await TokenFactory.token(header: noAlg)) == .invalid)
        let crit = JSONValue.object([
            ("alg", .string("HS256")), ("kid", .string("SKalpha")), ("crit", .array([.string("exp")])),
        ])
        #expect(await refusal(try await TokenFactory.token(header: crit)) == .invalid)
    }

    @Test(arguments: [
        "", "garbage", "a.b", "a.b.c.d", "....", "eyJhbGciOiJIUzI1NiJ9.eyJ9.", "!!!.???.***",
        "eyJhbGciOiJIUzI1NiJ9..sig", ".eyJpc3MiOiJTS2FscGhhIn0.sig", "e30.e30.e30",
        "W10.e30.", "e30.W10.", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.e30",
    ])
    func garbageIsMalformed(token: String) async {
        #expect(await refusal(token) == .invalid)
    }

    @Test func wrongClaimTypesAreMalformed() async throws {
        let numericKid = JSONValue.object([("alg", .string("HS256")), ("kid", .number(7))])
        #expect(await refusal(try await TokenFactory.token(header: numericKid)) == .invalid)
        #expect(
            await refusal(try await TokenFactory.token(payload: TokenFactory.payload(nbf: .string("now")))) == .invalid)
        #expect(await refusal(String(repeating: "a", count: 9000) + ".e30.e30") == .invalid)
    }

    // MARK: 20106 grants

    @Test func missingIdentityIsAGrantsError() async throws {
        #expect(
            await refusal(try await TokenFactory.token(payload: TokenFactory.payload(grants: nil))) == .grantsInvalid)
        #expect(
            await refusal(
                try await TokenFactory.token(
                    payload: TokenFactory.payload(grants: TokenFactory.grants(identity: nil, room: "standup"))))
                == .grantsInvalid)
        let numericIdentity = JSONValue.object([("identity", .number(42))])
        #expect(
            await refusal(try await TokenFactory.token(payload: TokenFactory.payload(grants: numericIdentity)))
                == .grantsInvalid)
        let badVideo = JSONValue.object([("identity", .string("alice")), ("video", .string("standup"))])
        #expect(
            await refusal(try await TokenFactory.token(payload: TokenFactory.payload(grants: badVideo)))
                == .grantsInvalid)
    }

    /// Identity checks (empty, too long, control characters) belong to Rooms
    /// (53200-53202): the verifier passes an empty identity through.
    @Test func emptyIdentityIsLeftToRooms() async throws {
        let token = try await TokenFactory.token(payload: TokenFactory.payload(grants: TokenFactory.grants(identity: "")))
        #expect(try await verifier.verify(token, now: now).identity == "")
    }

    @Test func roomGrantAllowsItsNameOrItsSIDOnly() async throws {
        let sid = "RM" + String(repeating: "a", count: 32)
        let byName = try await verifier.verify(
            try await TokenFactory.token(payload: TokenFactory.payload(grants: TokenFactory.grants(room: "standup"))),
            now: now)
        #expect(throws: Never.self) { try byName.checkRoom(name: "standup") }
        #expect(throws: Never.self) { try byName.checkRoom(name: "standup", sid: sid) }
        let byNameError = #expect(throws: AccessTokenError.self) { try byName.checkRoom(name: "retro", sid: sid) }
        #expect(byNameError?.code == .grantsInvalid)

        let bySID = try await verifier.verify(
            try await TokenFactory.token(payload: TokenFactory.payload(grants: TokenFactory.grants(room: sid))), now: now)
        #expect(throws: Never.self) { try bySID.checkRoom(name: "standup", sid: sid) }
        let bySIDError = #expect(throws: AccessTokenError.self) {
            try bySID.checkRoom(name: "standup", sid: "RM" + String(repeating: "b", count: 32))
        }
        #expect(bySIDError?.code == .grantsInvalid)
        // A room that does not exist yet has no SID to match.
        #expect(throws: AccessTokenError.self) { try bySID.checkRoom(name: "standup") }

        let anyRoom = try await verifier.verify(try await TokenFactory.token(), now: now)
        #expect(anyRoom.roomGrant == nil)
        #expect(throws: Never.self) { try anyRoom.checkRoom(name: "anything", sid: sid) }
    }

    @Test func errorsCarryTheProtocolCodes() {
        let expected: [AccessTokenError.Code: (Int, String)] = [
            .invalid: (20101, "AccessTokenInvalid"), .issuerInvalid: (20103, "AccessTokenIssuerInvalid"),
            .expired: (20104, "AccessTokenExpired"), .notYetValid: (20105, "AccessTokenNotYetValid"),
            .grantsInvalid: (20106, "AccessTokenGrantsInvalid"), .signatureInvalid: (20107, "AccessTokenSignatureInvalid"),
        ]
        for code in AccessTokenError.Code.allCases {
            let error = AccessTokenError(code, "detail").signalingError
            #expect(error.code.rawValue == expected[code]?.0)
            #expect(error.code.name == expected[code]?.1)
            #expect(!error.message.contains("detail"))
        }
    }
}
