/// Reads the fields of one JSON object with precise 53003 errors ("field
/// 'sdp' must be a string"). A `null` counts as absent for optional fields
/// (Python and Swift clients often send `null` for "not set") and as
/// missing for required ones.
struct JSONFields {
    let value: JSONValue
    /// Where the object sits, for error messages: "" at the top, "tracks[1]." inside.
    let path: String

    init(_ value: JSONValue, path: String = "") {
        self.value = value
        self.path = path
    }

    private func present(_ key: String) -> JSONValue? {
        switch value[key] {
        case nil, .null?: nil
        case let field?: field
        }
    }

    private func wrongType(_ key: String, _ expected: String) -> SignalingError {
        .invalidMessage("field '\(path)\(key)' must be \(expected)")
    }

    private func missing(_ key: String) -> SignalingError {
        .invalidMessage("field '\(path)\(key)' is required")
    }

    func optionalString(_ key: String) throws(SignalingError) -> String? {
        guard let field = present(key) else { return nil }
        guard case .string(let s) = field else { throw wrongType(key, "a string") }
        return s
    }

    func string(_ key: String) throws(SignalingError) -> String {
        guard let s = try optionalString(key) else { throw missing(key) }
        return s
    }

    func optionalBool(_ key: String) throws(SignalingError) -> Bool? {
        guard let field = present(key) else { return nil }
        guard case .bool(let b) = field else { throw wrongType(key, "true or false") }
        return b
    }

    func bool(_ key: String) throws(SignalingError) -> Bool {
        guard let b = try optionalBool(key) else { throw missing(key) }
        return b
    }

    func optionalEnum<E: RawRepresentable & CaseIterable>(_ key: String, as _: E.Type) throws(SignalingError) -> E?
    where E.RawValue == String {
        guard let raw = try optionalString(key) else { return nil }
        guard let e = E(rawValue: raw) else {
            throw wrongType(key, "one of " + E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
        }
        return e
    }

    func `enum`<E: RawRepresentable & CaseIterable>(_ key: String, as type: E.Type) throws(SignalingError) -> E
    where E.RawValue == String {
        guard let e = try optionalEnum(key, as: type) else { throw missing(key) }
        return e
    }

    /// The elements of an array field, each wrapped for reading with its index in the path.
    func optionalObjects(_ key: String) throws(SignalingError) -> [JSONFields]? {
        guard let field = present(key) else { return nil }
        guard case .array(let items) = field else { throw wrongType(key, "an array of objects") }
        var result: [JSONFields] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .object = item else { throw wrongType("\(key)[\(index)]", "an object") }
            result.append(JSONFields(item, path: "\(path)\(key)[\(index)]."))
        }
        return result
    }

    func objects(_ key: String) throws(SignalingError) -> [JSONFields] {
        guard let items = try optionalObjects(key) else { throw missing(key) }
        return items
    }

    func optionalStrings(_ key: String) throws(SignalingError) -> [String]? {
        guard let field = present(key) else { return nil }
        guard case .array(let items) = field else { throw wrongType(key, "an array of strings") }
        var result: [String] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .string(let s) = item else { throw wrongType("\(key)[\(index)]", "a string") }
            result.append(s)
        }
        return result
    }
}
