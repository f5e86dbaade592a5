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
        try answer(value, status: status).response()
    }

    static func answer(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> RESTAnswer {
        RESTAnswer(status: status.code, body: try encode(value))
    }
}

/// A REST response before it is one: its status and JSON body. A room
/// action carried to another node (`AdminRoutes+Relay`) travels back as this.
struct RESTAnswer: Sendable, Equatable {
    var status: Int
    var body: Data

    func response() -> Response {
        // No `WWW-Authenticate` on 401: Foundation's URLSession on Linux
        // waits forever for a credential when it sees one (a Basic
        // challenge), and Twilio's libraries send credentials up front anyway.
        Response(
            status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// `<status>`, a line break, the body: the text an owner answers with.
    var text: String { "\(status)\n" + String(decoding: body, as: UTF8.self) }

    init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }

    init?(text: String) {
        guard let newline = text.firstIndex(of: "\n"), let status = Int(text[..<newline]) else { return nil }
        self.status = status
        body = Data(text[text.index(after: newline)...].utf8)
    }
}
