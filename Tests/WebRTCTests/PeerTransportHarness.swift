import Packets
import Testing
@testable import WebRTC

/// Shared certificates: generating a P-256 key takes ~1 ms, and one per
/// process is what the server does too.
enum TestCertificates {
    static let server: DTLSCertificate = try! DTLSCertificate.generate()
    static let client: DTLSCertificate = try! DTLSCertificate.generate()
    static let stranger: DTLSCertificate = try! DTLSCertificate.generate()
}

/// Two PeerTransports on a virtual clock and a perfect in-process network:
/// `server` is ICE-lite (the SFU), `client` is a controlling agent that
/// knows the server's one address.
final class TransportPair {
    let serverAddress = STUNAddress(ipv4: 10, 0, 0, 1, port: 3478)
    var clientAddress = STUNAddress(ipv4: 10, 0, 0, 2, port: 50_000)
    let serverICE = ICECredentials(ufrag: "srvU", password: "server-password-0123456789")
    let clientICE = ICECredentials(ufrag: "cliU", password: "client-password-0123456789")
    var now = MediaTime.seconds(100)
    let server: PeerTransport
    let client: PeerTransport
    var serverEvents: [TransportEvent] = []
    var clientEvents: [TransportEvent] = []
    /// Datagrams each side received, in order (for assertions on sizes).
    var toServer: [[UInt8]] = []
    var toClient: [[UInt8]] = []
    /// When false, what the client sends is lost (silence for consent tests).
    var clientToServerOpen = true
    /// Rewrites what the client sends (e.g. fragments its ClientHello).
    var clientToServerFilter: ClientHelloFragmenter?
    /// Receive results at the server, by kind of traffic.
    var serverResults: [TransportReceiveResult] = []
    var clientResults: [TransportReceiveResult] = []
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)

    init(serverDTLSRole: DTLSRole = .server, clientMTU: Int = 1200, serverMTU: Int = 1200,
         serverExpectsFingerprint: String? = nil, consentTimeout: Duration = .seconds(30), clientConsentTimeout: Duration? = nil,
         clientProfiles: [SRTPProfile] = SRTPProfile.allCases, serverProfiles: [SRTPProfile] = SRTPProfile.allCases) throws {
        let serverRemote = RemoteTransportParameters(
            ice: clientICE, fingerprintAlgorithm: "sha-256",
            fingerprint: serverExpectsFingerprint ?? TestCertificates.client.fingerprint)
        let clientRemote = RemoteTransportParameters(
            ice: serverICE, fingerprintAlgorithm: "sha-256", fingerprint: TestCertificates.server.fingerprint)
        server = try PeerTransport(
            certificate: TestCertificates.server, localICE: serverICE, remote: serverRemote,
            dtlsRole: serverDTLSRole, iceMode: .lite,
            configuration: PeerTransportConfiguration(
                consentTimeout: consentTimeout, mtu: serverMTU, srtpProfiles: serverProfiles), now: now)
        client = try PeerTransport(
            certificate: TestCertificates.client, localICE: clientICE, remote: clientRemote,
            dtlsRole: serverDTLSRole == .server ? .client : .server, iceMode: .controlling(remote: serverAddress),
            configuration: PeerTransportConfiguration(
                consentTimeout: clientConsentTimeout ?? consentTimeout, mtu: clientMTU, srtpProfiles: clientProfiles), now: now)
    }

    deinit { scratch.deallocate() }

    /// Delivers everything both sides want to send until both are quiet.
    func deliver() {
        var moved = true
        while moved {
            moved = false
            while let (datagram, destination) = client.pollTransmit() {
                moved = true
                #expect(destination == TransportPath(serverAddress))
                guard clientToServerOpen else { continue }
                for piece in clientToServerFilter?.process(datagram) ?? [datagram] {
                    toServer.append(piece)
                    serverResults.append(receive(piece, at: server, from: clientAddress))
                }
            }
            while let (datagram, destination) = server.pollTransmit() {
                moved = true
                guard destination == TransportPath(clientAddress) else { continue }  // the client moved away: lost
                toClient.append(datagram)
                clientResults.append(receive(datagram, at: client, from: serverAddress))
            }
            collectEvents()
        }
    }

    func receive(_ datagram: [UInt8], at transport: PeerTransport, from source: STUNAddress) -> TransportReceiveResult {
        scratch.copyBytes(from: datagram)
        return transport.receive(scratch, length: datagram.count, from: source, now: now)
    }

    func collectEvents() {
        while let event = server.pollEvent() { serverEvents.append(event) }
        while let event = client.pollEvent() { clientEvents.append(event) }
    }

    /// Steps the virtual clock from timeout to timeout (at most `limit`
    /// ahead) delivering traffic, until `done` or the limit.
    func run(for limit: Duration, until done: () -> Bool = { false }) {
        let end = now.adding(nanoseconds: limit.mediaNanoseconds)
        deliver()
        while !done() {
            // Nothing scheduled (both failed or idle) or beyond the limit: stop.
            guard let next = [server.nextTimeout, client.nextTimeout].compactMap({ $0 }).min(), next <= end
            else { break }
            now = max(now, next)
            server.handleTimeout(now: now)
            client.handleTimeout(now: now)
            deliver()
        }
        if !done() { now = max(now, end) }
    }

    /// Runs until both sides are connected (SRTP ready), at most 10 s.
    func connect() {
        run(for: .seconds(10)) { server.isConnected && client.isConnected }
    }
}
