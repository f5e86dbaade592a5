import Foundation

/// A JSON value for the tests: to craft token headers and payloads of any
/// shape (a numeric `kid`, a string `nbf`) and to compare encoded frames as
/// objects, key order aside. The product reads JSON through Codable types.
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Key/value pairs in order. A duplicated key in parsed text has one value: the one JSONDecoder picks.
    case object([(String, JSONValue)])

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        // Objects compare as maps: key order is presentation, not meaning.
        case (.object(let a), .object(let b)):
            Dictionary(a, uniquingKeysWith: { _, last in last })
                == Dictionary(b, uniquingKeysWith: { _, last in last })
        default: false
        }
    }

    /// The value for `key` when this is an object.
    subscript(key: String) -> JSONValue? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.last(where: { $0.0 == key })?.1
    }

    /// Parses UTF-8 JSON text; `nil` for anything that is not exactly one JSON value.
    static func parse(_ text: String) -> JSONValue? {
        parse(Data(text.utf8))
    }

    /// Parses UTF-8 JSON bytes; `nil` for anything that is not exactly one JSON value.
    static func parse(_ data: Data) -> JSONValue? {
        // JSONDecoder (swift-foundation) limits nesting to 512 levels and
        // reports every malformation as an error, so no input traps here.
        try? JSONDecoder().decode(JSONValue.self, from: data)
    }
}

extension JSONValue: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !array.isAtEnd { items.append(try array.decode(JSONValue.self)) }
            self = .array(items)
        } else if let object = try? decoder.container(keyedBy: Key.self) {
            var pairs: [(String, JSONValue)] = []
            for key in object.allKeys {
                pairs.append((key.stringValue, try object.decode(JSONValue.self, forKey: key)))
            }
            self = .object(pairs)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let b = try? single.decode(Bool.self) {
                self = .bool(b)
            } else if let n = try? single.decode(Double.self) {
                self = .number(n)
            } else {
                self = .string(try single.decode(String.self))
            }
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .number(let n):
            var c = encoder.singleValueContainer()
            try c.encode(n)
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .array(let items):
            var c = encoder.unkeyedContainer()
            for item in items { try c.encode(item) }
        case .object(let pairs):
            var c = encoder.container(keyedBy: Key.self)
            for (key, value) in pairs { try c.encode(value, forKey: Key(stringValue: key)) }
        }
    }
}
