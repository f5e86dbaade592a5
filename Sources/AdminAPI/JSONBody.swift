import Foundation
import Hummingbird

/// JSON writing for REST responses. Resources are built as dictionaries so
/// that every field of Twilio's schema is written even when it is null
/// (`NSNull`), which synthesized `Encodable` would leave out.
enum JSONBody {
    /// Keys sorted (reproducible bodies), slashes unescaped (URLs stay readable).
    static func encode(_ object: [String: Any]) -> Data {
        // Only strings, numbers, booleans, NSNull, arrays and dictionaries
        // are ever put in: serialization cannot fail.
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }

    static func response(_ object: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: encode(object))))
    }
}

extension Optional {
    /// The value, or `NSNull` for a JSON null.
    var orNull: Any { self.map { $0 as Any } ?? NSNull() }
}
