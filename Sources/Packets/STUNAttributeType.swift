/// A STUN attribute type (RFC 5389 section 15 and 18.2, RFC 8489 section 14,
/// RFC 8445 section 16.1 for the ICE ones).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |         Type                  |            Length             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         Value (variable)                ....
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// Types 0x0000-0x7FFF are comprehension-required: a server that does not
/// know one answers 420 with UNKNOWN-ATTRIBUTES; 0x8000-0xFFFF may be ignored.
/// Integer literals convert, so `attribute(0x0006)` reads like the RFC tables.
public struct STUNAttributeType: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    public var rawValue: UInt16

    @inlinable
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    @inlinable
    public init(_ rawValue: UInt16) {
        self.rawValue = rawValue
    }

    @inlinable
    public init(integerLiteral value: UInt16) {
        self.rawValue = value
    }

    /// RFC 5389 section 15: an agent that does not understand a
    /// comprehension-required attribute must reject the message.
    @inlinable
    public var isComprehensionRequired: Bool { rawValue < 0x8000 }

    public static let mappedAddress: STUNAttributeType = 0x0001
    public static let username: STUNAttributeType = 0x0006
    public static let messageIntegrity: STUNAttributeType = 0x0008
    public static let errorCode: STUNAttributeType = 0x0009
    public static let unknownAttributes: STUNAttributeType = 0x000A
    public static let realm: STUNAttributeType = 0x0014
    public static let nonce: STUNAttributeType = 0x0015
    /// RFC 8489 section 14.6 (not verified by this module; listed so it is named in logs).
    public static let messageIntegritySHA256: STUNAttributeType = 0x001C
    public static let xorMappedAddress: STUNAttributeType = 0x0020
    /// RFC 8445 section 7.1.1.
    public static let priority: STUNAttributeType = 0x0024
    /// RFC 8445 section 7.1.2.
    public static let useCandidate: STUNAttributeType = 0x0025
    public static let software: STUNAttributeType = 0x8022
    public static let fingerprint: STUNAttributeType = 0x8028
    /// RFC 8445 section 7.1.3.
    public static let iceControlled: STUNAttributeType = 0x8029
    /// RFC 8445 section 7.1.3.
    public static let iceControlling: STUNAttributeType = 0x802A

    public var description: String {
        switch self {
        case .mappedAddress: "MAPPED-ADDRESS"
        case .username: "USERNAME"
        case .messageIntegrity: "MESSAGE-INTEGRITY"
        case .errorCode: "ERROR-CODE"
        case .unknownAttributes: "UNKNOWN-ATTRIBUTES"
        case .realm: "REALM"
        case .nonce: "NONCE"
        case .messageIntegritySHA256: "MESSAGE-INTEGRITY-SHA256"
        case .xorMappedAddress: "XOR-MAPPED-ADDRESS"
        case .priority: "PRIORITY"
        case .useCandidate: "USE-CANDIDATE"
        case .software: "SOFTWARE"
        case .fingerprint: "FINGERPRINT"
        case .iceControlled: "ICE-CONTROLLED"
        case .iceControlling: "ICE-CONTROLLING"
        default: "0x" + String(rawValue, radix: 16, uppercase: true)
        }
    }
}
