import Foundation
import MediaIO
import Testing

@Test func udpSocketBindsAKernelChosenPortAndReceives() throws {
    let socket = try UDPSocket(address: "127.0.0.1", port: 0)
    defer { socket.close() }
    let port = socket.localPort
    #expect(port != 0)

    let sender = try UDPSocket(address: "127.0.0.1", port: 0)
    defer { sender.close() }
    var destination = sockaddr_in()
    destination.sin_family = sa_family_t(AF_INET)
    destination.sin_port = port.bigEndian
    destination.sin_addr.s_addr = inet_addr("127.0.0.1")
    let payload: [UInt8] = [0x80, 96, 0, 1]
    let sent = withUnsafePointer(to: &destination) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            sendto(sender.descriptor, payload, payload.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    #expect(sent == payload.count)

    var buffer = [UInt8](repeating: 0, count: 64)
    let received = try buffer.withUnsafeMutableBytes { try socket.receive(into: $0) }
    #expect(Array(buffer[..<received]) == payload)
}

@Test func udpSocketReportsABusyPort() throws {
    let first = try UDPSocket(address: "127.0.0.1", port: 0)
    defer { first.close() }
    #expect(throws: SocketError.self) { try UDPSocket(address: "127.0.0.1", port: first.localPort) }
    #expect(throws: SocketError.self) { try UDPSocket(address: "not an address", port: 0) }
}
