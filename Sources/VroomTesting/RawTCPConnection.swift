import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP connection to 127.0.0.1 for tests that send a server
/// bytes no real client would (plain HTTP to a TLS port, half a TLS
/// ClientHello) and watch what comes back.
public final class RawTCPConnection: @unchecked Sendable {
    // @unchecked: `fd` is set once in init; a test uses one connection from one task at a time.
    public let fd: Int32

    public struct Failed: Error, CustomStringConvertible {
        public var description: String
    }

    public init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failed(description: "socket: errno \(errno)") }
        var address = sockaddr_in.loopback(port: UInt16(port))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failed(description: "connect to 127.0.0.1:\(port): errno \(code)")
        }
    }

    deinit { Glibc.close(fd) }

    public func send(_ bytes: [UInt8]) throws {
        let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw Failed(description: "send: \(sent) of \(bytes.count) bytes, errno \(errno)") }
    }

    /// What the peer sends until it closes, or until `seconds` pass.
    /// `closed` tells which: true when the peer closed (or reset) the connection.
    public func readUntilClosed(seconds: Double) -> (bytes: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let remaining = max(1, Int32(deadline.timeIntervalSinceNow * 1000))
            guard poll(&poller, 1, min(remaining, 100)) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (received, true) }  // 0: closed; -1: reset
            received += buffer[0..<count]
        }
        return (received, false)
    }

    /// The first 5 bytes of a TLS record and the first bytes of a
    /// ClientHello that claims 512 bytes: a server waits for the rest.
    public static let partialClientHello: [UInt8] = [
        0x16, 0x03, 0x01, 0x02, 0x00,  // handshake record, TLS 1.0 framing, 512 bytes
        0x01, 0x00, 0x01, 0xFC,  // ClientHello, 508 bytes
        0x03, 0x03,  // client_version TLS 1.2
    ] + [UInt8](repeating: 0x42, count: 16)  // the first half of `random`
}
