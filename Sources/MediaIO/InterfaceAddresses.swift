#if canImport(Glibc)
import Glibc
#endif

/// The machine's interface addresses, for the default ICE candidates
/// (PROTOCOL.md section 1: every non-loopback interface address, else
/// 127.0.0.1). IPv6 link-local addresses are left out: a candidate with
/// one needs a scope ID that a remote peer cannot use.
public enum InterfaceAddresses {
    public static func nonLoopback() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var result: [String] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0
            else { continue }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    var raw = sin.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
                }
            case AF_INET6:
                let linkLocal = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 -> Bool in
                    var raw = sin6.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
                    return withUnsafeBytes(of: &raw) { $0[0] == 0xFE && $0[1] & 0xC0 == 0x80 }
                }
                if linkLocal { continue }
            default:
                continue
            }
            let string = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !result.contains(string) { result.append(string) }
        }
        return result
    }

    /// The default announced addresses for workers bound to `bindAddress`
    /// (PROTOCOL.md section 9: only addresses a worker is bound to): that
    /// address itself when it is one; for `0.0.0.0` every non-loopback
    /// IPv4 address, for `::` (dual-stack) every non-loopback IPv4 and
    /// IPv6 one; 127.0.0.1 when no address is found or given.
    public static func defaultAnnounced(bindAddress: String, interfaces: [String] = nonLoopback()) -> [String] {
        switch bindAddress {
        case "0.0.0.0":
            let found = interfaces.filter { !$0.contains(":") }
            return found.isEmpty ? ["127.0.0.1"] : found
        case "::":
            return interfaces.isEmpty ? ["127.0.0.1"] : interfaces
        default:
            return [bindAddress.isEmpty ? "127.0.0.1" : bindAddress]
        }
    }
}
