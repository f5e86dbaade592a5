import Foundation
import Synchronization
import VroomTesting

/// A TCP relay on 127.0.0.1 toward `target`, whose connections the test
/// can cut at once: what a network that resets a client's TCP connection
/// does. One thread per direction per connection (a test's handful).
final class TCPCutRelay: Sendable {
    let port: UInt16
    private let listener: Int32
    private let target: UInt16
    /// Both descriptors of each relayed connection still open.
    private let open = Mutex<[(Int32, Int32)]>([])
    private let acceptedCount = Atomic<Int>(0)

    init(to target: UInt16) throws {
        self.target = target
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard fd >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    /// Connections accepted so far.
    var accepted: Int { acceptedCount.load(ordering: .relaxed) }

    /// Closes every relayed connection, both ends (new ones still relay).
    func cut() {
        let pairs = open.withLock { pairs in
            defer { pairs.removeAll() }
            return pairs
        }
        for (a, b) in pairs {
            shutdown(a, Int32(SHUT_RDWR))
            shutdown(b, Int32(SHUT_RDWR))
        }
    }

    func close() {
        shutdown(listener, Int32(SHUT_RDWR))
        _ = Glibc.close(listener)
        cut()
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in.loopback(port: target)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            guard connected else {
                _ = Glibc.close(client)
                _ = Glibc.close(server)
                continue
            }
            acceptedCount.add(1, ordering: .relaxed)
            open.withLock { $0.append((client, server)) }
            let done = Ends()
            for (from, to) in [(client, server), (server, client)] {
                Thread {
                    Self.pump(from: from, to: to)
                    shutdown(to, Int32(SHUT_RDWR))
                    // The second direction to end closes both descriptors.
                    if done.count.add(1, ordering: .relaxed).newValue == 2 {
                        _ = Glibc.close(client)
                        _ = Glibc.close(server)
                    }
                }.start()
            }
        }
    }

    private static func pump(from: Int32, to: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return }
            var sent = 0
            while sent < n {
                let m = buffer.withUnsafeBytes { send(to, $0.baseAddress! + sent, n - sent, Int32(MSG_NOSIGNAL)) }
                guard m > 0 else { return }
                sent += m
            }
        }
    }
}

/// How many directions of a relayed connection have ended.
private final class Ends: Sendable {
    let count = Atomic<Int>(0)
}
