import Foundation
import Signaling

/// Request parameters by Twilio's PascalCase names (PROTOCOL.md section 6):
/// from an `application/x-www-form-urlencoded` body or query string, or from
/// a JSON object with the same names. A repeated name keeps its first value.
struct FormBody: Sendable {
    private(set) var values: [String: String] = [:]

    init(_ values: [String: String] = [:]) {
        self.values = values
    }

    subscript(name: String) -> String? { values[name] }

    /// `a=1&b=two+words&c=%2F`: `+` is a space, `%XX` a byte; names are
    /// decoded too. Malformed escapes are kept literally rather than refused.
    init(urlEncoded text: String) {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            if values[name] == nil { values[name] = value }
        }
    }

    /// A JSON object: strings as they are, numbers and booleans as their
    /// text, arrays and objects (e.g. `Rules`) as their JSON text.
    init(json data: Data) throws(RESTError) {
        guard case .object(let pairs)? = JSONValue.parse(data) else {
            throw RESTError.invalidParameter("The request body is not a JSON object")
        }
        for (name, value) in pairs where values[name] == nil {
            switch value {
            case .null: continue
            case .string(let string): values[name] = string
            case .bool(let flag): values[name] = flag ? "true" : "false"
            case .number, .array, .object: values[name] = value.serialized
            }
        }
    }

    /// The body by its `Content-Type`: JSON when it says `application/json`,
    /// else form encoding (Twilio's libraries send form bodies).
    init(body: Data, contentType: String?) throws(RESTError) {
        let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        if mediaType == "application/json" {
            try self.init(json: body)
        } else {
            self.init(urlEncoded: String(decoding: body, as: UTF8.self))
        }
    }

    static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    // MARK: - Typed reads

    /// An integer parameter; `error` when present but not an integer.
    func integer(_ name: String, or error: RESTError) throws(RESTError) -> Int? {
        guard let text = values[name] else { return nil }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else { throw error }
        return value
    }
}
