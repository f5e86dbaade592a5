/// An optional field that JSON writes as `null` when absent, where
/// synthesized `Encodable` would leave it out: Twilio's resources list every
/// field of their schema, and its helper libraries read a missing one as an
/// error (PROTOCOL.md section 6).
@propertyWrapper
struct JSONNullable<Value: Encodable & Sendable>: Encodable, Sendable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue)
        } else {
            try container.encodeNil()
        }
    }
}
