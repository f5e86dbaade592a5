import Foundation

/// One request parameter as text, from either body Vroom accepts
/// (PROTOCOL.md section 6): a form value (`URLEncodedFormDecoder`) is its
/// text; a JSON value is its text when a string, the literal of a number or
/// boolean, and the JSON text of an array or object (`Rules`).
struct FormText: Decodable, Sendable, Equatable {
    var text: String

    init(_ text: String) {
        self.text = text
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self.text = text
        } else if let flag = try? container.decode(Bool.self) {
            text = flag ? "true" : "false"
        } else if let integer = try? container.decode(Int.self) {
            text = String(integer)
        } else if let number = try? container.decode(Double.self) {
            text = String(number)
        } else {
            text = String(decoding: try JSONEncoder().encode(container.decode(JSONFragment.self)), as: UTF8.self)
        }
    }

    /// An integer parameter; `error` when present but not an integer.
    static func integer(_ value: FormText?, or error: RESTError) throws(RESTError) -> Int? {
        guard let value else { return nil }
        guard let integer = Int(value.text.trimmingCharacters(in: .whitespaces)) else { throw error }
        return integer
    }
}

/// Any JSON value, to pass an array or object parameter on as its JSON text.
indirect enum JSONFragment: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONFragment])
    case object([String: JSONFragment])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let array = try? container.decode([JSONFragment].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONFragment].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .number(let number): try container.encode(number)
        case .string(let text): try container.encode(text)
        case .array(let array): try container.encode(array)
        case .object(let object): try container.encode(object)
        }
    }
}
