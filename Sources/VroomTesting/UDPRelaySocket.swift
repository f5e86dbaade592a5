#if canImport(Glibc)
import Glibc
#endif
import Packets

/// A socket call that failed while setting up the impairment relay.
public struct UDPRelayError: Error, Equatable, CustomStringConvertible {
    public var operation: String
    public var errorNumber: Int32

    public init(_ operation: String, errorNumber: Int32) {
        self.operation = operation
        self.errorNumber = errorNumber
    }

    public var description: String {
        "\(operation): \(String(cString: strerror(errorNumber))) (errno \(errorNumber))"
    }
}

/// The few IPv4 UDP socket calls the relay makes, on plain Glibc (the relay
/// is a test utility: one datagram per call is plenty for a test's rates).
enum UDPRelaySocket {
    /// 192.0.2.1 as `STUNAddress`, nil when `host` is not a dotted IPv4 address.
    static func address(host: String, port: UInt16) -> STUNAddress? {
        var raw = in_addr()
        guard inet_pton(AF_INET, host, &raw) == 1 else { return nil }
        return STUNAddress(ipv4: UInt32(bigEndian: raw.s_addr), port: port)
    }

    static func sockaddr(_ address: STUNAddress) -> sockaddr_in {
        var result = sockaddr_in()
        result.sin_family = sa_family_t(AF_INET)
        result.sin_port = address.port.bigEndian
        result.sin_addr = in_addr(s_addr: (address.ipv4 ?? 0).bigEndian)
        return result
    }

    static func address(_ raw: sockaddr_in) -> STUNAddress {
        STUNAddress(ipv4: UInt32(bigEndian: raw.sin_addr.s_addr), port: UInt16(bigEndian: raw.sin_port))
    }

    /// A UDP socket bound to `local` (port 0: the kernel picks), and
    /// connected to `remote` when given (then it hears only `remote`).
    static func open(bindingTo local: STUNAddress, connectingTo remote: STUNAddress? = nil) throws(UDPRelayError)
        -> Int32
    {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), Int32(IPPROTO_UDP))
        guard fd >= 0 else { throw UDPRelayError("socket", errorNumber: errno) }
        // 1 MiB of receive buffer: a keyframe burst must not overflow while
        // the relay thread is busy sending (the default is about 200 KiB).
        var size: Int32 = 1 << 20
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var bound = sockaddr(local)
        let bindResult = withUnsafePointer(to: &bound) {
            // sockaddr_in is the IPv4 layout of sockaddr: the cast is how the C API is meant to be called.
            $0.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bindResult == 0 else {
            let error = errno
            close(fd)
            throw UDPRelayError("bind \(local)", errorNumber: error)
        }
        if let remote {
            var peer = sockaddr(remote)
            let connectResult = withUnsafePointer(to: &peer) {
                // As above: the IPv4 layout of sockaddr.
                $0.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connectResult == 0 else {
                let error = errno
                close(fd)
                throw UDPRelayError("connect \(remote)", errorNumber: error)
            }
        }
        return fd
    }

    /// The port the socket is bound to.
    static func localPort(_ fd: Int32) -> UInt16 {
        var raw = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &raw) {
            // The IPv4 layout of sockaddr, sized by `length`.
            $0.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: raw.sin_port)
    }

    /// Monotonic nanoseconds (the relay's only clock).
    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
