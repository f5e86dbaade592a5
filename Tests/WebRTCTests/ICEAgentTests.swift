import Packets
import Testing
@testable import WebRTC

@Suite struct ICEAgentTests {
    static let local = ICECredentials(ufrag: "LOCL", password: "local-password-abcdefghij")
    static let remote = ICECredentials(ufrag: "REMT", password: "remote-password-abcdefghi")
    let a = TransportPath(STUNAddress(ipv4: 192, 0, 2, 1, port: 40_000))
    let b = TransportPath(STUNAddress(ipv4: 192, 0, 2, 2, port: 40_002))
    let start = MediaTime.seconds(10)

    /// A Binding request as a controlling peer sends it.
    static func bindingRequest(username: String, password: String, useCandidate: Bool,
                               fingerprint: Bool = true, id: STUNTransactionID = .random()) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 512)
        let length = try bytes.withUnsafeMutableBytes { buffer throws(PacketError) -> Int in
            var writer = try STUNMessageWriter(buffer: buffer, type: .bindingRequest, transactionID: id)
            try writer.appendUsername(username)
            try writer.appendPriority(1_845_501_695)
            try writer.appendICEControlling(0x1122_3344_5566_7788)
            if useCandidate { try writer.appendUseCandidate() }
            try writer.appendMessageIntegrity(password: password)
            if fingerprint { try writer.appendFingerprint() }
            return writer.finish()
        }
        return Array(bytes[0..<length])
    }

    func request(useCandidate: Bool, fingerprint: Bool = true, id: STUNTransactionID = .random()) throws -> [UInt8] {
        try ICEAgentTests.bindingRequest(username: "LOCL:REMT", password: ICEAgentTests.local.password, useCandidate: useCandidate, fingerprint: fingerprint, id: id)
    }

    func lite() -> ICEAgent {
        ICEAgent(local: ICEAgentTests.local, remote: ICEAgentTests.remote, mode: .lite, now: start)
    }

    func events(_ agent: ICEAgent) -> [ICEEvent] {
        var all: [ICEEvent] = []
        while let event = agent.pollEvent() { all.append(event) }
        return all
    }

    @Test func answersAnAuthenticatedCheckWithAnAuthenticatedResponse() throws {
        let agent = lite()
        let id = STUNTransactionID(high: 0x0102_0304_0506_0708, low: 0x090A_0B0C)
        let check = try request(useCandidate: false, id: id)
        #expect(check.withUnsafeBytes { agent.receive($0, from: a, now: start) } == .handled)
        let (response, destination) = try #require(agent.pollTransmit())
        #expect(destination == a)
        try response.withUnsafeBytes { bytes in
            let view = try STUNMessageView(validating: bytes)
            #expect(view.messageType == .bindingSuccessResponse)
            #expect(view.transactionID == id)
            #expect(view.xorMappedAddress == a.address)
            try view.verifyMessageIntegrity(password: ICEAgentTests.local.password)
            try view.verifyFingerprint()
        }
        #expect(events(agent) == [.addressValidated(a)])
        #expect(agent.selected == nil)  // no USE-CANDIDATE yet
        #expect(agent.isValidated(a))
        #expect(!agent.isValidated(b))
    }

    @Test func followsTheLatestNomination() throws {
        let agent = lite()
        _ = try request(useCandidate: false).withUnsafeBytes { agent.receive($0, from: a, now: start) }
        _ = try request(useCandidate: true).withUnsafeBytes { agent.receive($0, from: a, now: start) }
        #expect(agent.selected == a)
        _ = try request(useCandidate: true).withUnsafeBytes { agent.receive($0, from: b, now: start) }
        #expect(agent.selected == b)
        // A later check on the first pair without USE-CANDIDATE does not move it back.
        _ = try request(useCandidate: false).withUnsafeBytes { agent.receive($0, from: a, now: start) }
        #expect(agent.selected == b)
        #expect(events(agent) == [.addressValidated(a), .selected(a), .addressValidated(b), .selected(b)])
    }

    /// One address over UDP and over an ICE-TCP connection: two sources,
    /// validated, answered and selected apart (behind one NAT they may be
    /// two peers).
    @Test func oneAddressOnTwoPathsIsTwoSources() throws {
        let agent = lite()
        let overTCP = TransportPath(a.address, stream: 17)
        _ = try request(useCandidate: true).withUnsafeBytes { agent.receive($0, from: a, now: start) }
        #expect(agent.pollTransmit()?.destination == a)
        #expect(agent.isValidated(a))
        #expect(!agent.isValidated(overTCP))
        _ = try request(useCandidate: true).withUnsafeBytes { agent.receive($0, from: overTCP, now: start) }
        let (response, destination) = try #require(agent.pollTransmit())
        #expect(destination == overTCP)
        try response.withUnsafeBytes { bytes in
            let view = try STUNMessageView(validating: bytes)
            #expect(view.xorMappedAddress == a.address)
        }
        #expect(agent.isValidated(overTCP))
        #expect(agent.selected == overTCP)
        #expect(agent.selectedAddress == a.address)
        #expect(events(agent) == [.addressValidated(a), .selected(a), .addressValidated(overTCP), .selected(overTCP)])
    }

    @Test func dropsWrongIntegrityUnknownUsernameAndBadFingerprintSilently() throws {
        let agent = lite()
        let wrongPassword = try ICEAgentTests.bindingRequest(username: "LOCL:REMT", password: "guess", useCandidate: true)
        #expect(wrongPassword.withUnsafeBytes { agent.receive($0, from: a, now: start) } == .dropped(.stunIntegrity))
        let wrongUser = try ICEAgentTests.bindingRequest(
            username: "LOCL:OTHER", password: ICEAgentTests.local.password, useCandidate: true)
        #expect(wrongUser.withUnsafeBytes { agent.receive($0, from: a, now: start) } == .dropped(.stunUnknownUsername))
        // Reversed USERNAME (our own order for outgoing checks) is not ours either.
        let reversed = try ICEAgentTests.bindingRequest(
            username: "REMT:LOCL", password: ICEAgentTests.local.password, useCandidate: true)
        #expect(reversed.withUnsafeBytes { agent.receive($0, from: a, now: start) } == .dropped(.stunUnknownUsername))
        var badFingerprint = try request(useCandidate: true)
        badFingerprint[badFingerprint.count - 1] ^= 0xFF
        #expect(badFingerprint.withUnsafeBytes { agent.receive($0, from: a, now: start) } == .dropped(.malformed))
        #expect(agent.pollTransmit() == nil)
        #expect(events(agent).isEmpty)
        #expect(!agent.isValidated(a))
        // Without FINGERPRINT the check is still fine (it is optional for ICE).
        let plain = try request(useCandidate: true, fingerprint: false)
        #expect(plain.withUnsafeBytes { agent.receive($0, from: a, now: start) } == .handled)
    }

    @Test func consentExpiresThirtySecondsAfterTheLastCheck() throws {
        let agent = lite()
        #expect(agent.nextTimeout == nil)  // nothing to expire before selection
        _ = try request(useCandidate: true).withUnsafeBytes { agent.receive($0, from: a, now: start) }
        #expect(agent.nextTimeout == start.adding(milliseconds: 30_000))
        let later = start.adding(milliseconds: 20_000)
        _ = try request(useCandidate: false).withUnsafeBytes { agent.receive($0, from: a, now: later) }
        #expect(agent.nextTimeout == later.adding(milliseconds: 30_000))
        agent.handleTimeout(now: later.adding(milliseconds: 29_999))
        #expect(!agent.isFailed)
        _ = events(agent)
        agent.handleTimeout(now: later.adding(milliseconds: 30_000))
        #expect(agent.isFailed)
        #expect(events(agent) == [.failed(.mediaConnection("ICE consent expired: no valid check for 30.0 s"))])
        // A check after expiry does not revive it.
        #expect(try request(useCandidate: true).withUnsafeBytes { agent.receive($0, from: a, now: later) }
            == .dropped(.notConnected))
    }

    @Test func controllingAgentChecksEveryFiftyMillisecondsUntilAnswered() throws {
        let controlling = ICEAgent(local: ICEAgentTests.remote, remote: ICEAgentTests.local,
                                   mode: .controlling(remote: a.address), now: start)
        let server = lite()
        #expect(controlling.nextTimeout == start)
        controlling.handleTimeout(now: start)
        let (first, destination) = try #require(controlling.pollTransmit())
        #expect(destination == a)
        try first.withUnsafeBytes { bytes in
            let view = try STUNMessageView(validating: bytes)
            #expect(view.useCandidate)
            #expect(view.iceControlling != nil)
            #expect(view.priority != nil)
            #expect(view.usernameEquals("LOCL:REMT"))
        }
        #expect(controlling.nextTimeout == start.adding(milliseconds: 50))
        controlling.handleTimeout(now: start.adding(milliseconds: 50))
        let (second, _) = try #require(controlling.pollTransmit())
        // The server answers the second; the controlling side selects.
        #expect(second.withUnsafeBytes { server.receive($0, from: b, now: start) } == .handled)
        let (response, _) = try #require(server.pollTransmit())
        #expect(response.withUnsafeBytes { controlling.receive($0, from: a, now: start) } == .handled)
        #expect(controlling.selected == a)
        #expect(controlling.nextTimeout == start.adding(milliseconds: 5_000))
        // A replayed response (its transaction is done) is not accepted twice.
        #expect(response.withUnsafeBytes { controlling.receive($0, from: a, now: start) }
            == .dropped(.stunUnknownUsername))
    }
}
