/// A string enum of the protocol whose decoding, when it meets a value it
/// does not know, names the accepted ones (`must be one of "camera",
/// "audio"`), so the 53003 tells the client author what to send.
public protocol WireEnum: RawRepresentable, CaseIterable, Decodable where RawValue == String {}

extension WireEnum {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let value = Self(rawValue: try container.decode(String.self)) else {
            let accepted = Self.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "must be one of \(accepted)")
        }
        self = value
    }
}
