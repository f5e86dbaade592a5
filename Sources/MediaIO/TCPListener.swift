#if canImport(Glibc)
import Glibc
#endif
import CVroomUDP
import Packets

/// A worker's passive ICE-TCP socket: listening, non-blocking, at the port
/// number of the worker's UDP socket. A plain descriptor owned by the
/// worker's thread once the worker starts.
public struct TCPListener: Sendable {
    public let descriptor: Int32

    /// Listens on `address:port`, IPv4 or IPv6; `::` is dual-stack, as the
    /// worker's UDP socket (IPv4 peers then arrive as IPv4).
    public init(address: String, port: UInt16) throws(SocketError) {
        guard let parsed = STUNAddress(text: address, port: port) else {
            throw SocketError(operation: "inet_pton(\(address))", code: EINVAL)
        }
        // 128 pending connections: a burst of joins; the worker accepts
        // each wake-up's worth at once.
        let fd = parsed.withUnsafeAddressBytes { bytes in
            vroom_tcp_listen(parsed.family == .ipv4 ? 4 : 6, port, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), 128)
        }
        guard fd >= 0 else { throw SocketError(operation: "listen(tcp \(address):\(port))", code: -fd) }
        descriptor = fd
    }

    public var localPort: UInt16 { vroom_socket_local_port(descriptor) }

    public func close() { closeDescriptor(descriptor) }
}
