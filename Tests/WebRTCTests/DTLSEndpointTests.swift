import Glibc
import Packets
import Testing
@testable import WebRTC

@Suite struct DTLSEndpointTests {
    static func endpoints(clientMTU: Int = 1200, serverExpects: String? = nil) throws -> (DTLSEndpoint, DTLSEndpoint) {
        let client = try DTLSEndpoint(
            certificate: TestCertificates.client, role: .client, remoteFingerprintAlgorithm: "sha-256",
            remoteFingerprint: TestCertificates.server.fingerprint.lowercased(), mtu: clientMTU)
        let server = try DTLSEndpoint(
            certificate: TestCertificates.server, role: .server, remoteFingerprintAlgorithm: "sha-256",
            remoteFingerprint: serverExpects ?? TestCertificates.client.fingerprint)
        return (client, server)
    }

    /// Shuttles datagrams until both are quiet; returns what each sent.
    @discardableResult
    static func shuttle(_ client: DTLSEndpoint, _ server: DTLSEndpoint) -> (client: [[UInt8]], server: [[UInt8]]) {
        var sent: (client: [[UInt8]], server: [[UInt8]]) = ([], [])
        var moved = true
        while moved {
            moved = false
            while let datagram = client.pollDatagram() {
                moved = true
                sent.client.append(datagram)
                datagram.withUnsafeBytes { _ = server.receive($0, now: .seconds(1)) }
            }
            while let datagram = server.pollDatagram() {
                moved = true
                sent.server.append(datagram)
                datagram.withUnsafeBytes { _ = client.receive($0, now: .seconds(1)) }
            }
        }
        return sent
    }

    @Test func handshakeExportsMatchingKeys() throws {
        let (client, server) = try DTLSEndpointTests.endpoints()
        #expect(client.nextTimeout == nil)
        client.start(now: .seconds(1))
        #expect(client.nextTimeout != nil)  // the ClientHello's retransmission timer
        let sent = DTLSEndpointTests.shuttle(client, server)
        #expect(client.isConnected && server.isConnected)
        #expect(client.nextTimeout == nil)
        guard case .connected(let clientKeys) = client.pollEvent(), case .connected(let serverKeys) = server.pollEvent()
        else {
            Issue.record("no connected events")
            return
        }
        #expect(clientKeys.profile == .aeadAES128GCM)
        #expect(clientKeys.local == serverKeys.remote)
        #expect(clientKeys.remote == serverKeys.local)
        #expect(clientKeys.local != clientKeys.remote)
        #expect(clientKeys.local.count == 28)
        // 4 flights, each datagram within the MTU and made of whole records.
        for datagram in sent.client + sent.server {
            #expect(datagram.count <= 1200)
            var offset = 0
            while offset < datagram.count {
                offset += 13 + (Int(datagram[offset + 11]) << 8 | Int(datagram[offset + 12]))
            }
            #expect(offset == datagram.count)
        }
    }

    @Test func fragmentedClientHelloIsReassembled() throws {
        let (client, server) = try DTLSEndpointTests.endpoints()
        let fragmenter = ClientHelloFragmenter()
        client.start(now: .seconds(1))
        let hello = try #require(client.pollDatagram())
        let pieces = fragmenter.process(hello)
        try #require(pieces.count == 2)
        // The first fragment alone gets no answer: the server waits for the rest.
        #expect(pieces[0].withUnsafeBytes { server.receive($0, now: .seconds(1)) })
        #expect(server.pollDatagram() == nil)
        #expect(pieces[1].withUnsafeBytes { server.receive($0, now: .seconds(1)) })
        var moved = true
        while moved {
            moved = false
            while let datagram = server.pollDatagram() {
                moved = true
                datagram.withUnsafeBytes { _ = client.receive($0, now: .seconds(1)) }
            }
            while let datagram = client.pollDatagram() {
                moved = true
                for piece in fragmenter.process(datagram) {
                    piece.withUnsafeBytes { _ = server.receive($0, now: .seconds(1)) }
                }
            }
        }
        #expect(client.isConnected && server.isConnected)
    }

    @Test func smallestMTUFragmentsTheServersFlight() throws {
        let client = try DTLSEndpoint(
            certificate: TestCertificates.client, role: .client, remoteFingerprintAlgorithm: "sha-256",
            remoteFingerprint: TestCertificates.server.fingerprint, mtu: DTLSEndpoint.minimumMTU)
        let server = try DTLSEndpoint(
            certificate: TestCertificates.server, role: .server, remoteFingerprintAlgorithm: "sha-256",
            remoteFingerprint: TestCertificates.client.fingerprint, mtu: DTLSEndpoint.minimumMTU)
        client.start(now: .seconds(1))
        let sent = DTLSEndpointTests.shuttle(client, server)
        #expect(client.isConnected && server.isConnected)
        #expect(sent.server.count >= 4)  // ~660 bytes of flight 2 in 256-byte datagrams + Finished
        #expect((sent.client + sent.server).allSatisfy { $0.count <= DTLSEndpoint.minimumMTU })
    }

    @Test func aLostClientHelloIsSentAgainWhenTheTimerFires() throws {
        let (client, server) = try DTLSEndpointTests.endpoints()
        client.start(now: .seconds(1))
        let lost = try #require(client.pollDatagram())
        let deadline = try #require(client.nextTimeout)
        // RFC 6347 section 4.2.4.1: the first timer is 1 s.
        #expect(deadline > .seconds(1.9) && deadline <= .seconds(2))
        client.handleTimeout(now: .seconds(1.5))
        #expect(client.pollDatagram() == nil)
        // OpenSSL checks expiry against its own wall clock: let 1 s pass.
        usleep(1_050_000)
        client.handleTimeout(now: deadline)
        let again = try #require(client.pollDatagram())
        #expect(again.count == lost.count)
        #expect(again[13] == 1)  // a ClientHello again
        // The timer doubles (RFC 6347 section 4.2.4.1).
        let second = try #require(client.nextTimeout)
        #expect(second.nanoseconds(since: deadline) > 1_900_000_000)
        again.withUnsafeBytes { _ = server.receive($0, now: deadline) }
        DTLSEndpointTests.shuttle(client, server)
        #expect(client.isConnected && server.isConnected)
    }

    @Test func fingerprintMismatchFails() throws {
        let (client, server) = try DTLSEndpointTests.endpoints(serverExpects: TestCertificates.stranger.fingerprint)
        client.start(now: .seconds(1))
        DTLSEndpointTests.shuttle(client, server)
        #expect(!server.isConnected)
        guard case .failed(let error) = server.pollEvent() else {
            Issue.record("no failure")
            return
        }
        #expect(error.code == 53407)
        #expect(error.message.contains("fingerprint"))
        #expect(server.isFinished)
        #expect([UInt8](repeating: 22, count: 20).withUnsafeBytes { server.receive($0, now: .seconds(2)) } == false)
    }

    @Test func unsupportedFingerprintAlgorithmFails() throws {
        let client = try DTLSEndpoint(
            certificate: TestCertificates.client, role: .client, remoteFingerprintAlgorithm: "md5",
            remoteFingerprint: "00")
        let server = try DTLSEndpoint(
            certificate: TestCertificates.server, role: .server, remoteFingerprintAlgorithm: "sha-256",
            remoteFingerprint: TestCertificates.client.fingerprint)
        client.start(now: .seconds(1))
        DTLSEndpointTests.shuttle(client, server)
        #expect(client.pollEvent() == .failed(.dtlsTransport("unsupported fingerprint algorithm md5")))
    }

    @Test func recordsThatCannotBeReadAreDiscardedDuringTheHandshake() throws {
        let (client, server) = try DTLSEndpointTests.endpoints()
        // A record whose length runs past the datagram, and an epoch-1
        // record before any keys exist: RFC 6347 section 4.1.2.7 says drop.
        // (A well-formed epoch-0 record with a malformed handshake message is
        // a fatal decode error in OpenSSL; ICE keeps strangers from sending one.)
        let truncated: [UInt8] = [22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 40, 0x01, 0x00] + [UInt8](repeating: 0x41, count: 10)
        let wrongEpoch: [UInt8] = [23, 0xFE, 0xFD, 0, 1, 0, 0, 0, 0, 0, 1, 0, 10] + [UInt8](repeating: 0x41, count: 10)
        #expect(truncated.withUnsafeBytes { server.receive($0, now: .seconds(1)) })
        #expect(wrongEpoch.withUnsafeBytes { server.receive($0, now: .seconds(1)) })
        client.start(now: .seconds(1))
        DTLSEndpointTests.shuttle(client, server)
        #expect(client.isConnected && server.isConnected)
    }

    @Test func closeNotifyReachesThePeer() throws {
        let (client, server) = try DTLSEndpointTests.endpoints()
        client.start(now: .seconds(1))
        DTLSEndpointTests.shuttle(client, server)
        _ = client.pollEvent()
        _ = server.pollEvent()
        server.close()
        DTLSEndpointTests.shuttle(client, server)
        #expect(client.pollEvent() == .closedByPeer)
    }

    @Test func recordPackerKeepsRecordsWholeAndWithinTheMTU() {
        func record(_ bodyLength: Int, _ fill: UInt8) -> [UInt8] {
            [22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 1, UInt8(bodyLength >> 8), UInt8(bodyLength & 0xFF)]
                + [UInt8](repeating: fill, count: bodyLength)
        }
        let stream = record(100, 1) + record(50, 2) + record(1000, 3) + record(10, 4)
        var datagrams: [[UInt8]] = []
        DTLSRecordPacker.pack(stream, mtu: 200) { datagrams.append($0) }
        #expect(datagrams.map(\.count) == [113 + 63, 1013, 23])
        #expect(datagrams.flatMap { $0 } == stream)
        var truncated: [[UInt8]] = []
        DTLSRecordPacker.pack(Array(record(100, 1).prefix(50)), mtu: 200) { truncated.append($0) }
        #expect(truncated.map(\.count) == [50])
    }
}
