#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension STUNAddress {
    /// `192.0.2.1` or `2001:db8::1` (as in an ICE candidate or a flag) with
    /// `port`; nil when the text is not an IP address.
    public init?(text: String, port: UInt16) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            guard let address = withUnsafeBytes(of: &v4, { STUNAddress(addressBytes: $0, port: port) }) else { return nil }
            self = address
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            guard let address = withUnsafeBytes(of: &v6, { STUNAddress(addressBytes: $0, port: port) }) else { return nil }
            self = address
            return
        }
        return nil
    }
}
