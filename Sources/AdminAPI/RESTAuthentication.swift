import Foundation
import Hummingbird

/// HTTP Basic auth with `apiKey:apiSecret` for the admin REST routes
/// (PROTOCOL.md section 6); anything else gets 401 with code 20003.
/// The signaling socket is not behind it (its token is checked at `join`).
struct RESTAuthentication<Context: RequestContext>: RouterMiddleware {
    let apiKey: String
    let apiSecret: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], Self.verify(header, key: apiKey, secret: apiSecret) else {
            return RESTError.authentication.response()
        }
        return try await next(request, context)
    }

    /// Whether `Authorization` carries exactly `key:secret`. Both parts are
    /// always compared in full (constant time), so the time taken does not
    /// tell how many leading bytes of a guess were right.
    static func verify(_ header: String, key: String, secret: String) -> Bool {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let decoded = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces))
        else { return false }
        let credentials = Array(decoded)
        guard let colon = credentials.firstIndex(of: UInt8(ascii: ":")) else { return false }
        let keyMatches = constantTimeEqual(Array(credentials[..<colon]), Array(key.utf8))
        let secretMatches = constantTimeEqual(Array(credentials[(colon + 1)...]), Array(secret.utf8))
        return keyMatches && secretMatches
    }

    /// Compares every byte of `expected` whatever the lengths; the length
    /// difference is folded into the result instead of returning early.
    static func constantTimeEqual(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in expected.indices {
            let byte = index < given.count ? given[index] : 0
            difference |= byte ^ expected[index]
        }
        return difference == 0
    }
}
