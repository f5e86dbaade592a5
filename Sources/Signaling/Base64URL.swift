import Foundation

/// Strict base64url without padding (RFC 7515, section 2): JWT segments.
enum Base64URL {
    /// `nil` for characters outside `A-Z a-z 0-9 - _` or an impossible length.
    static func decode(_ text: Substring) -> Data? {
        var base64 = ""
        base64.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                base64.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "-"): base64 += "+"
            case UInt8(ascii: "_"): base64 += "/"
            default: return nil
            }
        }
        switch base64.utf8.count % 4 {
        case 1: return nil
        case 2: base64 += "=="
        case 3: base64 += "="
        default: break
        }
        return Data(base64Encoded: base64)
    }

    static func encode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
