import Foundation
import Testing

@testable import LoadTestCore

@Suite struct AccessTokenTests {
    /// RFC 7515 appendix A.1: the HS256 example, byte for byte.
    @Test func signsTheRFC7515Example() throws {
        let header = Data("{\"typ\":\"JWT\",\r\n \"alg\":\"HS256\"}".utf8)
        let payload = Data("{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}".utf8)
        let key = try #require(Data(base64Encoded: "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ+EstJQLr/T+1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow=="))
        let jws = AccessToken.sign(header: header, payload: payload, secret: key)
        #expect(jws == "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
    }

    /// PROTOCOL.md section 2: kid = iss = API key, identity and room grants, exp.
    @Test func carriesTheProtocolsClaims() throws {
        let now = Date(timeIntervalSince1970: 1_763_700_000)
        let token = AccessToken(apiKey: "devkey", apiSecret: "devsecret").token(identity: "s1-r0", room: "loadtest-abc-0", ttl: 3600, now: now, jti: "j1")
        let parts = token.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let header = try #require(try JSONSerialization.jsonObject(with: Self.decode(parts[0])) as? [String: Any])
        #expect(header["alg"] as? String == "HS256")
        #expect(header["kid"] as? String == "devkey")
        let payload = try #require(try JSONSerialization.jsonObject(with: Self.decode(parts[1])) as? [String: Any])
        #expect(payload["iss"] as? String == "devkey")
        #expect(payload["jti"] as? String == "j1")
        #expect(payload["exp"] as? Int == 1_763_703_600)
        #expect(payload["nbf"] as? Int == 1_763_699_990)
        let grants = try #require(payload["grants"] as? [String: Any])
        #expect(grants["identity"] as? String == "s1-r0")
        #expect((grants["video"] as? [String: Any])?["room"] as? String == "loadtest-abc-0")
        // The signature covers header and payload with the secret.
        let resigned = AccessToken.sign(header: try Self.decode(parts[0]), payload: try Self.decode(parts[1]), secret: Data("devsecret".utf8))
        #expect(resigned == token)
        let wrongSecret = AccessToken.sign(header: try Self.decode(parts[0]), payload: try Self.decode(parts[1]), secret: Data("other".utf8))
        #expect(wrongSecret != token)
    }

    static func decode(_ base64URL: String) throws -> Data {
        var text = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return try #require(Data(base64Encoded: text))
    }
}
