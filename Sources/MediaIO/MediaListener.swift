import Foundation
import Logging
import Packets

/// The media ports of a node: one UDP socket and one thread per media worker
/// (PROTOCOL.md section 1: worker k on `basePort + k`, or kernel-chosen ports
/// when `basePort` is 0).
///
/// For now it only receives, classifies each datagram by RFC 7983 and logs;
/// the media-plane issue turns each thread into a media worker that drives
/// the ICE/DTLS/SRTP cores and the SFU.
public final class MediaListener: Sendable {
    public let ports: [UInt16]
    private let sockets: [UDPSocket]

    public init(address: String, basePort: UInt16, workers: Int) throws(SocketError) {
        var sockets: [UDPSocket] = []
        for k in 0..<max(1, workers) {
            let port = basePort == 0 ? 0 : basePort &+ UInt16(k)
            do {
                sockets.append(try UDPSocket(address: address, port: port))
            } catch {
                sockets.forEach { $0.close() }
                throw error
            }
        }
        self.sockets = sockets
        self.ports = sockets.map(\.localPort)
    }

    /// Starts one receiving thread per socket.
    public func start(logger: Logger) {
        for (index, socket) in sockets.enumerated() {
            let thread = Thread {
                Self.receiveLoop(socket: socket, worker: index, logger: logger)
            }
            thread.name = "vroom-media-\(index)"
            thread.start()
        }
    }

    public func stop() {
        sockets.forEach { $0.close() }
    }

    private static func receiveLoop(socket: UDPSocket, worker: Int, logger: Logger) {
        // 1500 bytes: the largest datagram a standard Ethernet path carries.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count: Int
            do {
                count = try socket.receive(into: buffer)
            } catch {
                logger.info("media worker \(worker) stopped: \(error)")
                return
            }
            let kind = PacketKind(classifying: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            logger.debug("media worker \(worker): \(count) bytes, \(kind); not yet handled")
        }
    }
}
