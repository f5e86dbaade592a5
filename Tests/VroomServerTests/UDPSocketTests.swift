import CVroomUDP
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

/// `::` is dual-stack (PROTOCOL.md section 9): an IPv4 peer arrives as
/// family 4 with its IPv4 address (not ::ffff:a.b.c.d), an IPv6 peer as
/// family 6, and the batched send reaches each at its own family.
@Test func aDualStackSocketReceivesAndAnswersIPv4AndIPv6Peers() throws {
    let server = try UDPSocket(address: "::", port: 0)
    defer { server.close() }
    #expect(server.families == [.ipv4, .ipv6])
    #expect(vroom_udp_configure(server.descriptor, 0, 0) == 0)
    let v4 = try UDPSocket(address: "127.0.0.1", port: 0)
    defer { v4.close() }
    let v6 = try UDPSocket(address: "::1", port: 0)
    defer { v6.close() }
    #expect(v6.families == [.ipv6])
    var loopback4: [UInt8] = [127, 0, 0, 1] + [UInt8](repeating: 0, count: 12)
    var loopback6 = [UInt8](repeating: 0, count: 15) + [1]
    #expect(vroom_udp_send_one(v4.descriptor, [4, 4], 2, 4, server.localPort, &loopback4) == 2)
    #expect(vroom_udp_send_one(v6.descriptor, [6, 6], 2, 6, server.localPort, &loopback6) == 2)

    let buffers = (0..<2).map { _ in UnsafeMutablePointer<UInt8>.allocate(capacity: 64) }
    defer { buffers.forEach { $0.deallocate() } }
    var seen: [(family: UInt8, port: UInt16, address: [UInt8], byte: UInt8)] = []
    for _ in 0..<50 where seen.count < 2 {
        var slots = buffers.map {
            vroom_datagram(data: $0, capacity: 64, length: 0, family: 0, reserved: 0, port: 0,
                           address: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        }
        let n = vroom_udp_receive_batch(server.descriptor, &slots, 2)
        for slot in slots.prefix(Int(max(0, n))) {
            let address = withUnsafeBytes(of: slot.address) { Array($0.prefix(slot.family == 4 ? 4 : 16)) }
            seen.append((slot.family, slot.port, address, slot.data[0]))
        }
        if seen.count < 2 { usleep(10_000) }
    }
    let from4 = try #require(seen.first { $0.byte == 4 })
    let from6 = try #require(seen.first { $0.byte == 6 })
    #expect(from4.family == 4 && from4.address == [127, 0, 0, 1] && from4.port == v4.localPort)
    #expect(from6.family == 6 && from6.address == loopback6 && from6.port == v6.localPort)

    // Answers: family 4 goes out as IPv4 from the dual-stack socket.
    var to4 = from4.address + [UInt8](repeating: 0, count: 12)
    var to6 = from6.address
    #expect(vroom_udp_send_one(server.descriptor, [44], 1, 4, from4.port, &to4) == 1)
    #expect(vroom_udp_send_one(server.descriptor, [66], 1, 6, from6.port, &to6) == 1)
    var buffer = [UInt8](repeating: 0, count: 8)
    #expect(try buffer.withUnsafeMutableBytes { try v4.receive(into: $0) } == 1 && buffer[0] == 44)
    #expect(try buffer.withUnsafeMutableBytes { try v6.receive(into: $0) } == 1 && buffer[0] == 66)
}

@Test func announcedAddressesAreThoseOfTheBoundFamilies() {
    let interfaces = ["192.0.2.7", "2001:db8::7"]
    #expect(InterfaceAddresses.defaultAnnounced(bindAddress: "0.0.0.0", interfaces: interfaces) == ["192.0.2.7"])
    #expect(InterfaceAddresses.defaultAnnounced(bindAddress: "::", interfaces: interfaces) == interfaces)
    #expect(InterfaceAddresses.defaultAnnounced(bindAddress: "::1", interfaces: interfaces) == ["::1"])
    #expect(InterfaceAddresses.defaultAnnounced(bindAddress: "192.0.2.7", interfaces: interfaces) == ["192.0.2.7"])
    #expect(InterfaceAddresses.defaultAnnounced(bindAddress: "0.0.0.0", interfaces: ["2001:db8::7"]) == ["127.0.0.1"])
}
