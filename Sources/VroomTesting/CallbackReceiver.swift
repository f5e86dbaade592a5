import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 receiver on 127.0.0.1 (kernel-chosen port) for webhook
/// tests: answers every request with `status` (200 unless told otherwise)
/// and keeps every request it read. Blocking POSIX sockets on one thread:
/// enough for a few requests, no dependency.
///
/// It can start DOWN: the port is bound but not listening, so a connection
/// is refused (the kernel answers RST) until ``startListening()``.
public final class CallbackReceiver: @unchecked Sendable {
    // @unchecked: `requests` and `answer` are only touched under `lock`;
    // `fd` and `port` are set once in init.
    private let lock = NSLock()
    private var requests: [Request] = []
    private var answer = 200
    private let fd: Int32
    public let port: Int

    /// One request as it arrived.
    public struct Request: Sendable {
        public var method: String
        /// Path and query, as on the request line.
        public var target: String
        /// Header names lowercased.
        public var headers: [String: String]
        public var body: String
        /// The status this request was answered with.
        public var status: Int

        /// Form parameters of the body, decoded (`+` is a space).
        public var parameters: [(name: String, value: String)] {
            body.split(separator: "&").map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                func decode(_ s: Substring) -> String {
                    s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s)
                }
                return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
            }
        }

        public func parameter(_ name: String) -> String? {
            parameters.first { $0.name == name }?.value
        }
    }

    /// - Parameter listening: false starts the receiver down (refusing
    ///   connections) until ``startListening()``.
    public init(listening: Bool = true) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        if listening { try startListening() }
    }

    /// Starts accepting connections (on a thread of its own).
    public func startListening() throws {
        guard listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// The status every following request is answered with (e.g. 503).
    public func answer(with status: Int) {
        lock.withLock { answer = status }
    }

    /// Bodies of every request read, in arrival order.
    public var received: [String] { lock.withLock { requests.map(\.body) } }

    /// Every request read, in arrival order, with the status it got.
    public var all: [Request] { lock.withLock { requests } }

    /// Closing the socket makes `accept` fail and the thread end.
    public func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    private func serve() {
        while true {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var status = 400
            while true {
                let count = read(client, &buffer, buffer.count)
                if count <= 0 { break }
                data.append(contentsOf: buffer[0..<count])
                guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { continue }
                let lines = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                let length = headers["content-length"].flatMap { Int($0) } ?? 0
                guard data.count - end.upperBound >= length else { continue }
                let requestLine = lines[0].split(separator: " ")
                let body = String(decoding: data[end.upperBound..<(end.upperBound + length)], as: UTF8.self)
                status = lock.withLock {
                    requests.append(Request(
                        method: requestLine.first.map(String.init) ?? "", target: requestLine.count > 1 ? String(requestLine[1]) : "",
                        headers: headers, body: body, status: answer))
                    return answer
                }
                break
            }
            let reply = "HTTP/1.1 \(status) X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            _ = reply.withCString { write(client, $0, strlen($0)) }
            close(client)
        }
    }
}
