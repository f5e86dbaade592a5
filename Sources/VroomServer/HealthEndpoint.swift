#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import MediaIO

/// A minimal HTTP/1.1 listener that answers `GET /healthz` until the
/// control-plane issue brings the real HTTP server (Hummingbird), which takes
/// over this route, REST and signaling. Blocking, one connection at a time:
/// it only serves health probes.
struct HealthEndpoint {
    let descriptor: Int32
    let port: UInt16
    let rtcPorts: [UInt16]

    init(address: String, port: UInt16, rtcPorts: [UInt16]) throws(SocketError) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw SocketError(operation: "socket", code: errno) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = port.bigEndian
        inet_pton(AF_INET, address, &sin.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            _ = close(fd)
            throw SocketError(operation: "bind/listen(\(address):\(port))", code: code)
        }
        self.descriptor = fd
        self.port = UInt16(bigEndian: sin.sin_port)
        self.rtcPorts = rtcPorts
    }

    func serve(logger: Logger) {
        var request = [UInt8](repeating: 0, count: 4096)
        while true {
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                logger.error("accept failed: errno \(errno)")
                return
            }
            let count = request.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            let line = count > 0 ? String(decoding: request[..<count], as: UTF8.self).prefix { $0 != "\r" && $0 != "\n" } : ""
            let response: String
            if line.hasPrefix("GET /healthz ") || line == "GET /healthz" {
                let body = "{\"status\":\"ok\",\"rtcPorts\":[\(rtcPorts.map(String.init).joined(separator: ","))]}"
                response = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            } else {
                let body = "{\"code\":20404,\"message\":\"Not found\",\"status\":404}"
                response = "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            }
            logger.debug("\(line) -> \(response.prefix(12))")
            var bytes = Array(response.utf8)
            _ = bytes.withUnsafeMutableBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            _ = close(client)
        }
    }
}
