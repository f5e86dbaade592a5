import Packets
import Testing
import VroomTesting
@testable import WebRTC

/// A slot like the media worker's: room for the packet and SRTP's trailer.
final class PacketSlot {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500 + SRTPContext.maximumTrailerLength, alignment: 16)
    deinit { buffer.deallocate() }

    func load(_ bytes: [UInt8]) -> Int {
        buffer.copyBytes(from: bytes)
        return bytes.count
    }

    func bytes(_ length: Int) -> [UInt8] { Array(buffer[0..<length]) }
}

func rtpPacket(sequence: UInt16, ssrc: UInt32 = 0x1234_5678, payloadType: UInt8 = 96, payload: Int = 100) -> [UInt8] {
    var bytes: [UInt8] = [0x80, payloadType, UInt8(sequence >> 8), UInt8(sequence & 0xFF),
                          0, 0, 0x10, 0x00,
                          UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xFF), UInt8((ssrc >> 8) & 0xFF), UInt8(ssrc & 0xFF)]
    bytes += (0..<payload).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(sequence)) }
    return bytes
}

/// An RTCP receiver report with one report block (RFC 3550 section 6.4.2).
func rtcpReceiverReport(ssrc: UInt32 = 0x0BAD_CAFE) -> [UInt8] {
    var bytes: [UInt8] = [0x81, 201, 0, 7,
                          UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xFF), UInt8((ssrc >> 8) & 0xFF), UInt8(ssrc & 0xFF)]
    bytes += [0x12, 0x34, 0x56, 0x78] + [UInt8](repeating: 0, count: 20)
    return bytes
}

@Suite struct PeerTransportTests {
    @Test(arguments: [DTLSRole.server, DTLSRole.client])
    func connectsInBothDTLSRoles(serverRole: DTLSRole) throws {
        let pair = try TransportPair(serverDTLSRole: serverRole)
        pair.connect()
        #expect(pair.server.isConnected)
        #expect(pair.client.isConnected)
        #expect(pair.server.selectedAddress == pair.clientAddress)
        #expect(pair.client.selectedAddress == pair.serverAddress)
        #expect(pair.serverEvents.first == .addressValidated(TransportPath(pair.clientAddress)))
        #expect(pair.serverEvents.contains(.selected(TransportPath(pair.clientAddress))))
        // Both prefer GCM, so GCM it is.
        #expect(pair.serverEvents.last == .connected(.aeadAES128GCM))
        #expect(pair.clientEvents.last == .connected(.aeadAES128GCM))
        #expect(pair.server.counters.dropped == 0)
        #expect(pair.client.counters.dropped == 0)
        // Every DTLS datagram fits the MTU.
        for datagram in pair.toServer + pair.toClient { #expect(datagram.count <= 1200) }
    }

    @Test(arguments: [DTLSRole.server, DTLSRole.client], SRTPProfile.allCases)
    func rtpAndRTCPRoundTripBothWays(serverRole: DTLSRole, profile: SRTPProfile) throws {
        // The client offers only `profile`: the server must accept either.
        let pair = try TransportPair(serverDTLSRole: serverRole, clientProfiles: [profile])
        pair.connect()
        try #require(pair.server.isConnected && pair.client.isConnected)
        #expect(pair.serverEvents.last == .connected(profile))
        #expect(pair.client.srtpProfile == profile)
        let tag = profile == .aeadAES128GCM ? 16 : 10
        let slot = PacketSlot()
        for (sender, receiver, source) in [(pair.client, pair.server, pair.clientAddress),
                                           (pair.server, pair.client, pair.serverAddress)] {
            for sequence in UInt16(1)...5 {
                let plain = rtpPacket(sequence: sequence)
                let protected = try #require(sender.protectRTP(slot.buffer, length: slot.load(plain)))
                #expect(protected == plain.count + tag)
                #expect(slot.bytes(protected)[12..<plain.count] != plain[12...])
                let result = receiver.receive(slot.buffer, length: protected, from: source, now: pair.now)
                #expect(result == .rtp(length: plain.count))
                #expect(slot.bytes(plain.count) == plain)
            }
            let report = rtcpReceiverReport()
            let protected = try #require(sender.protectRTCP(slot.buffer, length: slot.load(report)))
            #expect(protected == report.count + 4 + tag)  // E+index, tag
            #expect(receiver.receive(slot.buffer, length: protected, from: source, now: pair.now)
                == .rtcp(length: report.count))
            #expect(slot.bytes(report.count) == report)
            #expect(receiver.counters.rtpReceived == 5)
            #expect(receiver.counters.rtcpReceived == 1)
            #expect(sender.counters.rtpProtected == 5)
        }
    }

    @Test func replayedAndTamperedPacketsAreDroppedAndCounted() throws {
        let pair = try TransportPair()
        pair.connect()
        let slot = PacketSlot()
        let protected = try #require(pair.client.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 7))))
        let wire = slot.bytes(protected)
        #expect(pair.receive(wire, at: pair.server, from: pair.clientAddress) == .rtp(length: 112))
        #expect(pair.receive(wire, at: pair.server, from: pair.clientAddress) == .dropped(.replay))
        var tampered = wire
        tampered[20] ^= 0x01
        // A fresh sequence number so only the tag can fail.
        let next = try #require(pair.client.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 8))))
        tampered = slot.bytes(next)
        tampered[next - 1] ^= 0x80
        #expect(pair.receive(tampered, at: pair.server, from: pair.clientAddress) == .dropped(.srtpAuth))
        #expect(pair.server.counters[dropped: .replay] == 1)
        #expect(pair.server.counters[dropped: .srtpAuth] == 1)
        // The session is undisturbed: the untampered packet still goes through.
        #expect(pair.receive(slot.bytes(next), at: pair.server, from: pair.clientAddress) == .rtp(length: 112))
    }

    @Test func retransmissionReusesASequenceNumberOnTheSendingSide() throws {
        let pair = try TransportPair()
        pair.connect()
        let slot = PacketSlot()
        let packet = rtpPacket(sequence: 42)
        #expect(pair.server.protectRTP(slot.buffer, length: slot.load(packet)) != nil)
        // A NACK answer protects the same packet again: allowed (allow_repeat_tx).
        #expect(pair.server.protectRTP(slot.buffer, length: slot.load(packet)) != nil)
        #expect(pair.server.counters.protectFailures == 0)
    }

    @Test func wrongSDPFingerprintFailsWith53407() throws {
        let pair = try TransportPair(serverExpectsFingerprint: TestCertificates.stranger.fingerprint)
        pair.connect()
        #expect(!pair.server.isConnected)
        let failure = try #require(pair.server.failure)
        #expect(failure.code == 53407)
        #expect(pair.serverEvents.contains(.failed(failure)))
        // Media is refused afterwards.
        let slot = PacketSlot()
        #expect(pair.server.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 1))) == nil)
    }

    @Test func wrongSDPFingerprintFailsOnTheDTLSClientToo() throws {
        let pair = try TransportPair(serverDTLSRole: .client,
                                     serverExpectsFingerprint: TestCertificates.stranger.fingerprint)
        pair.connect()
        #expect(pair.server.failure?.code == 53407)
        #expect(!pair.server.isConnected)
    }

    @Test func noCommonSRTPProfileFailsWith53407() throws {
        let pair = try TransportPair(clientProfiles: [.aes128CMSHA1_80], serverProfiles: [.aeadAES128GCM])
        pair.connect()
        #expect(pair.server.failure?.code == 53407)
        #expect(pair.client.failure?.code == 53407)
        #expect(!pair.server.isConnected && !pair.client.isConnected)
    }

    @Test func badSTUNIsDroppedAndCountedWithoutDisturbingTheSession() throws {
        let pair = try TransportPair()
        pair.connect()
        try #require(pair.server.isConnected)
        let responsesBefore = pair.toClient.count
        // Wrong password.
        let wrongIntegrity = try ICEAgentTests.bindingRequest(
            username: "srvU:cliU", password: "not-the-password", useCandidate: true)
        #expect(pair.receive(wrongIntegrity, at: pair.server, from: STUNAddress(ipv4: 6, 6, 6, 6, port: 1))
            == .dropped(.stunIntegrity))
        // Unknown username (right password even).
        let unknown = try ICEAgentTests.bindingRequest(
            username: "srvU:someoneElse", password: pair.serverICE.password, useCandidate: true)
        #expect(pair.receive(unknown, at: pair.server, from: STUNAddress(ipv4: 6, 6, 6, 6, port: 1))
            == .dropped(.stunUnknownUsername))
        pair.deliver()
        #expect(pair.toClient.count == responsesBefore)  // no responses sent
        #expect(pair.server.counters[dropped: .stunIntegrity] == 1)
        #expect(pair.server.counters[dropped: .stunUnknownUsername] == 1)
        #expect(pair.server.selectedAddress == pair.clientAddress)
        #expect(!pair.server.isValidated(TransportPath(STUNAddress(ipv4: 6, 6, 6, 6, port: 1))))
        // Media still flows.
        let slot = PacketSlot()
        let protected = try #require(pair.client.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 1))))
        #expect(pair.server.receive(slot.buffer, length: protected, from: pair.clientAddress, now: pair.now)
            == .rtp(length: 112))
    }

    @Test func dtlsAndSRTPFromAnUnvalidatedAddressAreDropped() throws {
        let pair = try TransportPair()
        pair.connect()
        let intruder = STUNAddress(ipv4: 10, 0, 0, 66, port: 4444)
        // A DTLS record header (handshake, DTLS 1.2) with a short body.
        let dtls: [UInt8] = [22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 9, 0, 4, 1, 2, 3, 4]
        #expect(pair.receive(dtls, at: pair.server, from: intruder) == .dropped(.unvalidatedAddress))
        let slot = PacketSlot()
        let protected = try #require(pair.client.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 3))))
        #expect(pair.server.receive(slot.buffer, length: protected, from: intruder, now: pair.now)
            == .dropped(.unvalidatedAddress))
        #expect(pair.server.counters[dropped: .unvalidatedAddress] == 2)
        #expect(pair.server.isConnected)
    }

    @Test func dtlsBeforeAnyCheckIsDropped() throws {
        let pair = try TransportPair()
        let dtls: [UInt8] = [22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1]
        #expect(pair.receive(dtls, at: pair.server, from: pair.clientAddress) == .dropped(.unvalidatedAddress))
    }

    @Test func srtpBeforeDTLSFinishesIsNotConnected() throws {
        let pair = try TransportPair()
        // Only ICE: the controlling side's first check and the response.
        pair.client.handleTimeout(now: pair.now)
        let (check, _) = try #require(pair.client.pollTransmit())
        #expect(pair.receive(check, at: pair.server, from: pair.clientAddress) == .handled)
        let slot = PacketSlot()
        #expect(pair.server.receive(slot.buffer, length: slot.load(rtpPacket(sequence: 1) + [UInt8](repeating: 0, count: 16)),
                                    from: pair.clientAddress, now: pair.now) == .dropped(.notConnected))
        #expect(pair.server.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 1))) == nil)
        #expect(pair.server.counters[dropped: .notConnected] == 2)
    }

    @Test func consentExpiresAfterThirtySecondsOfSilence() throws {
        let pair = try TransportPair()
        pair.connect()
        try #require(pair.server.isConnected)
        pair.clientToServerOpen = false
        let silenceStart = pair.now
        pair.run(for: .seconds(29))
        #expect(pair.server.failure == nil)
        #expect(pair.server.isConnected)
        pair.run(for: .seconds(5)) { pair.server.failure != nil }
        let failure = try #require(pair.server.failure)
        #expect(failure.code == 53405)
        #expect(pair.serverEvents.last == .failed(failure))
        // It failed 30 s after the last check, which came at most 5 s before the silence.
        let elapsed = pair.now.nanoseconds(since: silenceStart)
        #expect(elapsed >= 25_000_000_000 && elapsed <= 30_000_000_000)
        #expect(!pair.server.isConnected)
        #expect(pair.server.nextTimeout == nil)
        let slot = PacketSlot()
        #expect(pair.server.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 9))) == nil)
    }

    @Test func consentChecksKeepTheSessionAlive() throws {
        let pair = try TransportPair()
        pair.connect()
        pair.run(for: .seconds(120))
        #expect(pair.server.failure == nil)
        #expect(pair.client.failure == nil)
        #expect(pair.server.isConnected)
        // One consent check every 5 s: about 24 in two minutes.
        #expect(pair.server.counters.stunHandled >= 24)
    }

    @Test func theClientsControllingAgentFailsWhenTheServerIsSilent() throws {
        let pair = try TransportPair()
        pair.clientToServerOpen = false
        pair.run(for: .seconds(31)) { pair.client.failure != nil }
        #expect(pair.client.failure?.code == 53405)
    }

    @Test func aNewerNominationMovesTheSelectedAddress() throws {
        let pair = try TransportPair()
        pair.connect()
        let first = pair.clientAddress
        #expect(pair.server.selectedAddress == first)
        // The client's checks now come from another address (a second pair).
        pair.clientAddress = STUNAddress(ipv4: 192, 168, 1, 20, port: 50_002)
        pair.run(for: .seconds(6))
        #expect(pair.server.selectedAddress == pair.clientAddress)
        #expect(pair.serverEvents.contains(.addressValidated(TransportPath(pair.clientAddress))))
        #expect(pair.serverEvents.last == .selected(TransportPath(pair.clientAddress)))
        // Both addresses stay validated; media from either is accepted.
        #expect(pair.server.isValidated(TransportPath(first)))
        let slot = PacketSlot()
        let protected = try #require(pair.client.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 11))))
        #expect(pair.server.receive(slot.buffer, length: protected, from: pair.clientAddress, now: pair.now)
            == .rtp(length: 112))
    }

    @Test func aClientHelloInTwoDatagramsCompletes() throws {
        let pair = try TransportPair()
        let fragmenter = ClientHelloFragmenter()
        pair.clientToServerFilter = fragmenter
        pair.connect()
        #expect(fragmenter.splits == 1)
        #expect(pair.server.isConnected && pair.client.isConnected)
        // The server saw the ClientHello as two DTLS datagrams, each a fragment.
        let dtls = pair.toServer.filter { (20...63).contains($0[0]) }
        #expect(dtls.count >= 3)
        #expect(dtls.prefix(2).allSatisfy { $0[13] == 1 })
        #expect(pair.server.counters.dtlsHandled == UInt64(dtls.count))
        #expect(pair.server.counters.dropped == 0)
    }

    @Test func smallMTUFragmentsFlightsAndBothSidesReassemble() throws {
        // OpenSSL's smallest MTU (256) on both sides: the server's ~660-byte
        // flight (certificate) goes out in fragments the client reassembles.
        let pair = try TransportPair(clientMTU: DTLSEndpoint.minimumMTU, serverMTU: DTLSEndpoint.minimumMTU)
        pair.connect()
        #expect(pair.server.isConnected && pair.client.isConnected)
        let dtlsToClient = pair.toClient.filter { (20...63).contains($0[0]) }
        #expect(dtlsToClient.count >= 3)
        #expect((pair.toServer + pair.toClient).allSatisfy { $0.count <= DTLSEndpoint.minimumMTU })
    }

    @Test func iceRestartKeepsMediaFlowing() throws {
        let pair = try TransportPair()
        pair.connect()
        let newServer = ICECredentials(ufrag: "srv2", password: "server-password-restart-01")
        let newClient = ICECredentials(ufrag: "cli2", password: "client-password-restart-01")
        pair.server.restartICE(local: newServer, remote: RemoteTransportParameters(
            ice: newClient, fingerprintAlgorithm: "sha-256", fingerprint: TestCertificates.client.fingerprint))
        pair.client.restartICE(local: newClient, remote: RemoteTransportParameters(
            ice: newServer, fingerprintAlgorithm: "sha-256", fingerprint: TestCertificates.server.fingerprint))
        #expect(pair.server.localICE == newServer)
        pair.run(for: .seconds(40))
        #expect(pair.server.failure == nil)
        #expect(pair.server.isConnected)
        // The old credentials no longer authenticate.
        let old = try ICEAgentTests.bindingRequest(username: "srvU:cliU", password: pair.serverICE.password,
                                                   useCandidate: true)
        #expect(pair.receive(old, at: pair.server, from: pair.clientAddress) == .dropped(.stunUnknownUsername))
    }

    @Test func aClientWhoseConsentExpiredRecoversByAnICERestartWithoutANewHandshake() throws {
        // The client gives up after 10 s; the server would wait 30.
        let pair = try TransportPair(clientConsentTimeout: .seconds(10))
        pair.connect()
        let handshakeDatagrams = pair.toServer.filter { (20...63).contains($0[0]) }.count
        // The path dies until the client's agent gives up.
        pair.clientToServerOpen = false
        pair.run(for: .seconds(15)) { pair.client.failure != nil }
        #expect(pair.client.failure?.code == 53405)
        #expect(pair.server.failure == nil, "the server's own consent clock has not run out yet")
        // The path is back; both sides restart ICE with new credentials.
        pair.clientToServerOpen = true
        let newServer = ICECredentials(ufrag: "srv3", password: "server-password-recover-01")
        let newClient = ICECredentials(ufrag: "cli3", password: "client-password-recover-01")
        pair.server.restartICE(local: newServer, remote: RemoteTransportParameters(
            ice: newClient, fingerprintAlgorithm: "sha-256", fingerprint: TestCertificates.client.fingerprint))
        let recovered = pair.client.recoverICE(
            local: newClient,
            remote: RemoteTransportParameters(
                ice: newServer, fingerprintAlgorithm: "sha-256", fingerprint: TestCertificates.server.fingerprint),
            now: pair.now)
        #expect(recovered)
        #expect(pair.client.failure == nil)
        pair.clientEvents.removeAll()
        pair.run(for: .seconds(2)) { pair.clientEvents.contains(.selected(TransportPath(pair.serverAddress))) }
        #expect(pair.clientEvents.contains(.selected(TransportPath(pair.serverAddress))), "nominated again")
        #expect(pair.client.isConnected)
        #expect(pair.toServer.filter { (20...63).contains($0[0]) }.count == handshakeDatagrams, "no new DTLS handshake")
        // Media flows again with the same SRTP keys.
        let slot = PacketSlot()
        let protected = try #require(pair.client.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 40))))
        #expect(pair.server.receive(slot.buffer, length: protected, from: pair.clientAddress, now: pair.now)
            == .rtp(length: 112))
        // And it stays up past the old consent deadline.
        pair.run(for: .seconds(40))
        #expect(pair.client.failure == nil && pair.server.failure == nil)
    }

    @Test func onlyAnICEFailureIsRecoverable() throws {
        let pair = try TransportPair()
        pair.connect()
        // Not failed: nothing to recover.
        #expect(!pair.client.recoverICE(local: pair.clientICE, remote: pair.client.remote, now: pair.now))
        // Failed before DTLS ever finished (no SRTP): start anew instead.
        let silent = try TransportPair()
        silent.clientToServerOpen = false
        silent.run(for: .seconds(31)) { silent.client.failure != nil }
        #expect(silent.client.failure?.code == 53405)
        #expect(!silent.client.recoverICE(local: silent.clientICE, remote: silent.client.remote, now: silent.now))
    }

    @Test func closeSendsCloseNotifyAndThePeerReportsIt() throws {
        let pair = try TransportPair()
        pair.connect()
        pair.client.close()
        #expect(!pair.client.isConnected)
        pair.deliver()
        #expect(pair.serverEvents.last == .closedByPeer)
        #expect(!pair.server.isConnected)
    }

    @Test func demuxAgreesWithPacketKindForEveryFirstTwoBytes() {
        var disagreements = 0
        for first in 0...255 {
            for second in 0...255 {
                let bytes: [UInt8] = [UInt8(first), UInt8(second)]
                bytes.withUnsafeBytes { raw in
                    if PeerTransport.classify(raw) != PacketKind(classifying: raw) { disagreements += 1 }
                }
            }
            [UInt8(first)].withUnsafeBytes { raw in
                if PeerTransport.classify(raw) != PacketKind(classifying: raw) { disagreements += 1 }
            }
        }
        #expect(disagreements == 0)
        #expect([UInt8]().withUnsafeBytes { PeerTransport.classify($0) } == .unknown)
    }

    @Test func randomDatagramsNeverCrash() throws {
        var random = SeededGenerator(seed: 0x5EED_7A57)
        let pair = try TransportPair()
        pair.connect()
        let slot = PacketSlot()
        let sources = [pair.clientAddress, STUNAddress(ipv4: 1, 2, 3, 4, port: 5)]
        for round in 0..<3000 {
            var bytes = random.bytes(Int.random(in: 0...300, using: &random))
            // Steer the first byte into every demux range often.
            if !bytes.isEmpty, round % 2 == 0 {
                bytes[0] = [0, 1, 20, 22, 23, 128, 0x80, 0x81, 144][Int.random(in: 0..<9, using: &random)]
                if bytes.count > 1, round % 4 == 0 { bytes[1] = UInt8.random(in: 192...223, using: &random) }
            }
            let source = sources[round % 2]
            let length = slot.load(bytes)
            _ = pair.server.receive(slot.buffer, length: length, from: source, now: pair.now)
            _ = pair.client.receive(slot.buffer, length: slot.load(bytes), from: pair.serverAddress, now: pair.now)
        }
        #expect(pair.server.counters.datagramsReceived >= 3000)
        // Neither side fell over; real media still flows (DTLS noise is discarded).
        let protected = try #require(pair.client.protectRTP(slot.buffer, length: slot.load(rtpPacket(sequence: 500))))
        #expect(pair.server.receive(slot.buffer, length: protected, from: pair.clientAddress, now: pair.now)
            == .rtp(length: 112))
    }
}
