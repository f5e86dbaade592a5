import Packets

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed socket call, with the call's name and `errno`.
public struct SocketError: Error, CustomStringConvertible, Sendable {
    public var operation: String
    public var code: Int32

    public init(operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    public var description: String { "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))" }
}

/// A UDP socket bound to one port: IPv4 for an IPv4 address, IPv6 for an
/// IPv6 one, and dual-stack for `::` (PROTOCOL.md section 9: IPv4 peers
/// arrive as IPv4, IPv6 peers as IPv6), or IPv4 alone on `0.0.0.0`'s port
/// where the kernel has no IPv6. A plain file descriptor: the media worker
/// thread that owns it is the only one that reads or writes it.
public struct UDPSocket: Sendable {
    public let descriptor: Int32
    /// Which peers it reaches: IPv4, IPv6, or both (a dual-stack `::`).
    public let families: Set<STUNAddress.Family>

    /// Binds `address:port`; port 0 lets the kernel pick a free one (see `localPort`).
    public init(address: String, port: UInt16) throws(SocketError) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port.bigEndian
            sin.sin_addr = v4
            descriptor = try Self.bound(family: AF_INET, address: &sin, description: "\(address):\(port)")
            families = [.ipv4]
        } else if inet_pton(AF_INET6, address, &v6) == 1 {
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port.bigEndian
            sin6.sin6_addr = v6
            let any = address == "::"
            do {
                descriptor = try Self.bound(family: AF_INET6, address: &sin6, description: "[\(address)]:\(port)", dualStack: any)
            } catch where any && error.code == EAFNOSUPPORT {
                // No IPv6 in this kernel: `::` means every address, IPv4's.
                self = try UDPSocket(address: "0.0.0.0", port: port)
                return
            }
            families = any ? [.ipv4, .ipv6] : [.ipv6]
        } else {
            throw SocketError(operation: "inet_pton(\(address))", code: EINVAL)
        }
    }

    /// A socket of `family` bound to `address` (a `sockaddr_in` or
    /// `sockaddr_in6`); `dualStack` clears IPV6_V6ONLY first.
    private static func bound<Address>(
        family: Int32, address: inout Address, description: String, dualStack: Bool = false
    ) throws(SocketError) -> Int32 {
        #if canImport(Glibc)
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue), 0)
        #else
        let fd = socket(family, SOCK_DGRAM, 0)
        #endif
        guard fd >= 0 else { throw SocketError(operation: "socket", code: errno) }
        if family == AF_INET6 {
            var only: Int32 = dualStack ? 0 : 1
            guard setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &only, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                let code = errno
                closeDescriptor(fd)
                throw SocketError(operation: "setsockopt(IPV6_V6ONLY)", code: code)
            }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<Address>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            closeDescriptor(fd)
            throw SocketError(operation: "bind(\(description))", code: code)
        }
        return fd
    }

    /// The port the socket is bound to (the kernel's choice when bound to 0).
    public var localPort: UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { return 0 }
        return withUnsafeBytes(of: &storage) { raw in
            // sin_port and sin6_port sit at the same offset, after the family.
            UInt16(bigEndian: raw.load(fromByteOffset: MemoryLayout<sa_family_t>.size, as: UInt16.self))
        }
    }

    /// Blocks until a datagram arrives; returns its length (0 after `close`).
    public func receive(into buffer: UnsafeMutableRawBufferPointer) throws(SocketError) -> Int {
        let n = recv(descriptor, buffer.baseAddress, buffer.count, 0)
        guard n >= 0 else { throw SocketError(operation: "recv", code: errno) }
        return n
    }

    public func close() {
        closeDescriptor(descriptor)
    }
}

func closeDescriptor(_ fd: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(fd)
    #else
    _ = Darwin.close(fd)
    #endif
}
