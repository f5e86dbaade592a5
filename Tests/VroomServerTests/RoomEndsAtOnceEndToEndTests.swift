import AccessTokens
import Foundation
import Signaling
import Testing

/// What happens when a meeting ends (issue 11, item 5): every participant
/// of one room leaves or closes its socket at the same moment. Each closing
/// handshake must be answered promptly; before the fix, from 17
/// participants on, some were never answered and the client gave up after
/// its 10 s close timeout (with 50 and `leave`, all of them).
extension ServerProcessTests {
@Suite struct RoomEndsAtOnceEndToEndTests {
    static let participants = 50

    @Test(arguments: [true, false], [false, true])
    func fiftySocketsOfOneRoomCloseAtOnce(leave: Bool, publish: Bool) async throws {
        let server = try SignalingEndToEndTests.Server()
        defer { server.stop() }
        let issuer = AccessTokenIssuer(apiKey: "devkey", apiSecret: "devsecret")
        var clients: [ClosingClient] = []
        for index in 0..<Self.participants {
            let token = try await issuer.sign(identity: "p\(index)", room: nil, ttl: 600, now: Date())
            clients.append(ClosingClient(port: server.port, token: token, room: "meeting", publish: publish))
        }
        let deadline = Date().addingTimeInterval(30)
        while !clients.allSatisfy({ $0.isJoined }), Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let allJoined = clients.allSatisfy { $0.isJoined }
        try #require(allJoined, "not all joined: \(clients.compactMap(\.failure))")
        // Let the join fan-out settle: 50 joins are 1,225 participantConnected
        // (and with publishing, 50 publishes and their offers and answers).
        try await Task.sleep(for: .milliseconds(publish ? 3000 : 500))

        for client in clients { client.startClosing(leave: leave) }
        var handshakes: [Duration] = []
        for client in clients {
            // Until the server closed the connection (after its close frame).
            let handshake = await client.closingHandshake()
            handshakes.append(handshake?.closed ?? ClosingClient.closeTimeout)
        }
        let slow = handshakes.filter { $0 > .seconds(1) }
        let slowest = handshakes.max() ?? .zero
        print("\(Self.participants) closes \(leave ? "after leave" : "(bare)")\(publish ? ", publishing" : ""): slowest \(slowest), \(slow.count) over 1 s")
        let unanswered = clients.filter { !$0.serverSentClose }.count
        #expect(unanswered == 0, "\(unanswered) of \(Self.participants) clients got no close frame from the server")
        #expect(slow.isEmpty, "\(slow.count) of \(Self.participants) closing handshakes took over 1 s (slowest \(slowest))")
    }
}
}
