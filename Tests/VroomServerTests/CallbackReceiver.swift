import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 receiver on 127.0.0.1 (kernel-chosen port) for webhook
/// tests: answers every request 200 and keeps the bodies. Blocking POSIX
/// sockets on one thread: enough for a few requests, no dependency.
final class CallbackReceiver: @unchecked Sendable {
    // @unchecked: `bodies` is only touched under `lock`; `fd` is set once in init.
    private let lock = NSLock()
    private var bodies: [String] = []
    private let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    var received: [String] { lock.withLock { bodies } }

    /// Closing the socket makes `accept` fail and the thread end.
    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    private func serve() {
        while true {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(client, &buffer, buffer.count)
                if count <= 0 { break }
                data.append(contentsOf: buffer[0..<count])
                if let end = data.range(of: Data("\r\n\r\n".utf8)) {
                    let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).lowercased()
                    let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                    if data.count - end.upperBound >= length {
                        let body = String(decoding: data[end.upperBound..<(end.upperBound + length)], as: UTF8.self)
                        lock.withLock { bodies.append(body) }
                        break
                    }
                }
            }
            let reply = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            _ = reply.withCString { write(client, $0, strlen($0)) }
            close(client)
        }
    }
}
