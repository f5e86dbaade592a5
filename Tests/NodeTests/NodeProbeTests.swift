import Foundation
import Testing
import VroomTesting

@testable import Node

/// `NodeProbe` on loopback: a port nobody listens on refuses; a listening
/// one does not.
@Suite struct NodeProbeTests {
    @Test func aPortWithoutAListenerRefusesAndAListeningOneDoesNot() async throws {
        let closed = try PostgresServer.freeTCPPort()
        #expect(await NodeProbe.refusesConnections(nodeURL: "http://127.0.0.1:\(closed)"))

        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(bound == 0 && listen(listener, 4) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        #expect(await NodeProbe.refusesConnections(nodeURL: "http://127.0.0.1:\(port)") == false)
        #expect(await NodeProbe.refusesConnections(nodeURL: "not a url") == false)
    }
}
