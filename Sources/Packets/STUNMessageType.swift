/// The 14-bit STUN message type: a 12-bit method and a 2-bit class whose bits
/// are interleaved (RFC 5389 section 6, RFC 8489 section 5) so that the
/// values stay compatible with RFC 3489's 0x0001/0x0101/0x0111.
///
/// ```
///  0                 1
///  2  3  4 5 6 7 8 9 0 1 2 3 4 5
/// +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
/// |M |M |M|M|M|C|M|M|M|C|M|M|M|M|
/// |11|10|9|8|7|1|6|5|4|0|3|2|1|0|
/// +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// A Binding request is 0x0001, a success response 0x0101, an error
/// response 0x0111, an indication 0x0011.
public struct STUNMessageType: Hashable, Sendable, CustomStringConvertible {
    public var method: STUNMethod
    /// The class (`class` is a Swift keyword).
    public var messageClass: STUNMessageClass

    @inlinable
    public init(method: STUNMethod, messageClass: STUNMessageClass) {
        self.method = method
        self.messageClass = messageClass
    }

    /// Decodes the type field; the two most significant bits (always 0 in a
    /// STUN message) are ignored.
    @inlinable
    public init(rawValue: UInt16) {
        let m = (rawValue & 0x000F) | ((rawValue >> 1) & 0x0070) | ((rawValue >> 2) & 0x0F80)
        let c = ((rawValue >> 4) & 0b01) | ((rawValue >> 7) & 0b10)
        self.method = STUNMethod(rawValue: m)
        // `c` has two bits, and all four values are cases.
        self.messageClass = STUNMessageClass(rawValue: UInt8(c)) ?? .request
    }

    /// The 16-bit field as written on the wire (top two bits 0).
    @inlinable
    public var rawValue: UInt16 {
        let m = method.rawValue & 0x0FFF
        let c = UInt16(messageClass.rawValue)
        return (m & 0x000F) | ((m & 0x0070) << 1) | ((m & 0x0F80) << 2) | ((c & 0b01) << 4) | ((c & 0b10) << 7)
    }

    public static let bindingRequest = STUNMessageType(method: .binding, messageClass: .request)
    public static let bindingIndication = STUNMessageType(method: .binding, messageClass: .indication)
    public static let bindingSuccessResponse = STUNMessageType(method: .binding, messageClass: .successResponse)
    public static let bindingErrorResponse = STUNMessageType(method: .binding, messageClass: .errorResponse)

    public var description: String { "\(method) \(messageClass)" }
}

/// The class bits C1 C0 of a STUN message type (RFC 5389 section 6).
public enum STUNMessageClass: UInt8, Hashable, Sendable, CustomStringConvertible {
    case request = 0b00
    case indication = 0b01
    case successResponse = 0b10
    case errorResponse = 0b11

    public var description: String {
        switch self {
        case .request: "request"
        case .indication: "indication"
        case .successResponse: "success response"
        case .errorResponse: "error response"
        }
    }
}

/// A 12-bit STUN method (RFC 5389 section 18.1). ICE uses only Binding.
public struct STUNMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// 0x000-0xFFF; higher bits are dropped by the initializer because they
    /// have no place in the 14-bit message type.
    public let rawValue: UInt16

    @inlinable
    public init(rawValue: UInt16) {
        self.rawValue = rawValue & 0x0FFF
    }

    public static let binding = STUNMethod(rawValue: 0x001)

    public var description: String {
        self == .binding ? "Binding" : "method 0x" + String(rawValue, radix: 16, uppercase: true)
    }
}
