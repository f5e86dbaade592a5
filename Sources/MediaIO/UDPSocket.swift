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

/// An IPv4 UDP socket bound to one port. A plain file descriptor: the media
/// worker thread that owns it is the only one that reads or writes it.
public struct UDPSocket: Sendable {
    public let descriptor: Int32

    /// Binds `address:port`; port 0 lets the kernel pick a free one (see `localPort`).
    public init(address: String, port: UInt16) throws(SocketError) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_DGRAM, 0)
        #endif
        guard fd >= 0 else { throw SocketError(operation: "socket", code: errno) }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = port.bigEndian
        guard inet_pton(AF_INET, address, &sin.sin_addr) == 1 else {
            closeDescriptor(fd)
            throw SocketError(operation: "inet_pton(\(address))", code: EINVAL)
        }
        let result = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            closeDescriptor(fd)
            throw SocketError(operation: "bind(\(address):\(port))", code: code)
        }
        descriptor = fd
    }

    /// The port the socket is bound to (the kernel's choice when bound to 0).
    public var localPort: UInt16 {
        var sin = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return result == 0 ? UInt16(bigEndian: sin.sin_port) : 0
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
