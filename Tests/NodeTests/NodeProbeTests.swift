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

        let listening = try CallbackReceiver()
        defer { listening.stop() }
        let port = listening.port
        #expect(await NodeProbe.refusesConnections(nodeURL: "http://127.0.0.1:\(port)") == false)
        #expect(await NodeProbe.refusesConnections(nodeURL: "not a url") == false)
        // `localhost` may resolve to ::1 first, where this IPv4 listener is
        // not: one address that accepts is enough to say "not refused".
        #expect(await NodeProbe.refusesConnections(nodeURL: "http://localhost:\(port)") == false)
    }
}
