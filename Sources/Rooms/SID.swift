/// A Twilio-style resource identifier: a two-letter prefix and 32 lowercase
/// hex digits, 34 characters in all (PROTOCOL.md section 3.1).
///
/// The four concrete SID types share this protocol so validation and
/// generation are written once; they stay distinct types so a track SID can
/// never be passed where a participant SID is expected (STYLE.md habit 5).
public protocol PrefixedSID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The two-letter prefix, e.g. `"RM"`.
    static var prefix: String { get }
    /// The full 34-character SID.
    var rawValue: String { get }
    /// Wraps a string already known to be valid (no check).
    init(unchecked rawValue: String)
}

extension PrefixedSID {
    /// Accepts exactly the prefix followed by 32 lowercase hex digits.
    public init?(validating string: String) {
        let utf8 = Array(string.utf8)
        let prefix = Array(Self.prefix.utf8)
        guard utf8.count == 34, Array(utf8.prefix(2)) == prefix else { return nil }
        for byte in utf8.dropFirst(2) {
            let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            let isHexLetter = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f")
            guard isDigit || isHexLetter else { return nil }
        }
        self.init(unchecked: string)
    }

    /// A new SID with 128 random bits drawn from `generator`.
    public static func random(using generator: inout some RandomNumberGenerator) -> Self {
        Self(unchecked: Self.prefix + randomHex(byteCount: 16, using: &generator))
    }

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// `byteCount` random bytes as lowercase hex.
func randomHex(byteCount: Int, using generator: inout some RandomNumberGenerator) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(byteCount * 2)
    var word: UInt64 = 0
    for index in 0..<byteCount {
        if index % 8 == 0 { word = generator.next() }
        let byte = UInt8(truncatingIfNeeded: word >> UInt64((index % 8) * 8))
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
}

/// A room's SID (`RM…`).
public struct RoomSID: PrefixedSID {
    public static let prefix = "RM"
    public let rawValue: String
    public init(unchecked rawValue: String) { self.rawValue = rawValue }
}

/// A participant's SID (`PA…`): one per session; a duplicate identity or a
/// new join gets a new one, a resume keeps it.
public struct ParticipantSID: PrefixedSID {
    public static let prefix = "PA"
    public let rawValue: String
    public init(unchecked rawValue: String) { self.rawValue = rawValue }
}

/// A published track's SID (`MT…`).
public struct TrackSID: PrefixedSID {
    public static let prefix = "MT"
    public let rawValue: String
    public init(unchecked rawValue: String) { self.rawValue = rawValue }
}

/// A user-defined message's SID (`ME…`).
public struct MessageSID: PrefixedSID {
    public static let prefix = "ME"
    public let rawValue: String
    public init(unchecked rawValue: String) { self.rawValue = rawValue }
}

/// The opaque one-time token a `joined` reply carries for a later resume
/// (PROTOCOL.md section 3.6). 256 random bits as 64 hex digits: unguessable
/// when the service is given a cryptographic generator.
public struct SessionToken: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    static func random(using generator: inout some RandomNumberGenerator) -> SessionToken {
        SessionToken(rawValue: randomHex(byteCount: 32, using: &generator))
    }

    /// Not the token itself: tokens must not end up in logs.
    public var description: String { "SessionToken(…)" }
}
