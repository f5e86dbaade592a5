import Foundation

@testable import Signaling

/// Crafts tokens byte by byte: any header, any payload, any secret, so each
/// refusal rule can be hit on its own.
enum TokenFactory {
    static let now = Date(timeIntervalSince1970: 1_763_700_000)
    static let keys = ["SKalpha": "alpha-secret", "SKbeta": "beta-secret-that-is-longer-than-32-bytes!"]

    static func base64url(_ bytes: some Sequence<UInt8>) -> String {
        Base64URL.encode(Data(bytes))
    }

    static func header(alg: String = "HS256", kid: String? = "SKalpha") -> JSONValue {
        var pairs: [(String, JSONValue)] = [("alg", .string(alg)), ("typ", .string("JWT"))]
        if let kid { pairs.append(("kid", .string(kid))) }
        return .object(pairs)
    }

    static func payload(
        iss: String? = "SKalpha", exp: JSONValue? = .number(1_763_703_600), nbf: JSONValue? = nil,
        grants: JSONValue? = .object([("identity", .string("alice"))])
    ) -> JSONValue {
        var pairs: [(String, JSONValue)] = [("sub", .string("tests")), ("jti", .string("jti-1"))]
        if let iss { pairs.append(("iss", .string(iss))) }
        if let exp { pairs.append(("exp", exp)) }
        if let nbf { pairs.append(("nbf", nbf)) }
        if let grants { pairs.append(("grants", grants)) }
        return .object(pairs)
    }

    static func grants(identity: String? = "alice", room: String? = nil) -> JSONValue {
        var pairs: [(String, JSONValue)] = []
        if let identity { pairs.append(("identity", .string(identity))) }
        if let room { pairs.append(("video", .object([("room", .string(room))]))) }
        return .object(pairs)
    }

    /// `header.payload.signature` with an HS256 MAC under `secret`.
    static func token(header: JSONValue = header(), payload: JSONValue = payload(), secret: String = "alpha-secret")
        async throws -> String
    {
        let input = base64url(header.serialized.utf8) + "." + base64url(payload.serialized.utf8)
        let mac = try await AccessTokenVerifier.hs256MAC(secret: secret, message: Array(input.utf8))
        return input + "." + base64url(mac)
    }
}

extension JSONValue {
    /// The JSON text of a crafted header or payload, through JSONEncoder
    /// (key order is free: the MAC covers the bytes as written).
    var serialized: String {
        // JSONEncoder fails only on non-finite numbers, which no test crafts.
        String(decoding: (try? JSONEncoder().encode(self)) ?? Data(), as: UTF8.self)
    }
}
