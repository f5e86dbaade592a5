import Dispatch
import Foundation

/// Whether another node's process is gone: nothing listens at its URL.
///
/// A node killed (or crashed) stops heartbeating, and the cluster judges it
/// dead only after 10 s of silence. Its clients notice at once (their
/// sockets close) and resume at another node; that node asks here, and a
/// refused TCP connection (the port has no listener: the process is gone)
/// lets it take the rooms over now instead of 10 s later. Only a refusal
/// counts: a timeout or an unreachable network may be a partition from a
/// live node, and then the heartbeat rule decides, so two nodes never both
/// host a room that is still live on one.
enum NodeProbe {
    /// How long a connection attempt may take before it counts as "not
    /// refused".
    static let timeoutMilliseconds: Int32 = 1000

    static func refusesConnections(nodeURL: String) async -> Bool {
        guard let components = URLComponents(string: nodeURL), let host = components.host else { return false }
        let port = components.port ?? (components.scheme == "https" ? 443 : 80)
        // A blocking connect and poll: on a GCD thread, not on Swift
        // concurrency's few.
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: connectionRefused(host: host, port: port))
            }
        }
    }

    /// Every address of `host` refuses (one that accepts, times out or
    /// fails otherwise means the node may be there: `localhost` resolves
    /// to ::1 first, where an IPv4-only node refuses).
    private static func connectionRefused(host: String, port: Int) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, found != nil else { return false }
        defer { freeaddrinfo(found) }
        var address = found
        while let current = address {
            guard refuses(current.pointee) else { return false }
            address = current.pointee.ai_next
        }
        return true
    }

    private static func refuses(_ address: addrinfo) -> Bool {
        let socket = Glibc.socket(address.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        if connect(socket, address.ai_addr, address.ai_addrlen) == 0 { return false }
        if errno == ECONNREFUSED { return true }
        guard errno == EINPROGRESS else { return false }
        var descriptor = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
        guard poll(&descriptor, 1, timeoutMilliseconds) == 1 else { return false }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return false }
        return error == ECONNREFUSED
    }
}
