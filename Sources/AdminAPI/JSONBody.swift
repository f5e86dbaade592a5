import Foundation
import Hummingbird

/// JSON writing for REST responses, through Codable: keys sorted
/// (reproducible bodies), slashes unescaped (URLs stay readable), dates as
/// `TwilioDate` (`YYYY-MM-DDTHH:MM:SSZ`). Fields of Twilio's schema that do
/// not apply are written as null (`JSONNullable`), never left out.
enum JSONBody {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(TwilioDate.string(date))
        }
        return encoder
    }

    static func encode(_ value: some Encodable) throws -> Data {
        try encoder().encode(value)
    }

    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: try encode(value))))
    }
}
