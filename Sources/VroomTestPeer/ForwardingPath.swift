import CVroomUDP
import Foundation
import Logging
import Packets
import SFU
import WebRTC

import MediaIO

/// A media worker's forwarding path, driven on the caller's thread: the
/// production `MediaWorkerRooms` (demux, SRTP unprotect, the room's
/// `Router` and its DownTracks, `ConnectionSink`'s SRTP protect from the
/// ingress slot into the egress slot)
/// and `EgressQueue`'s `sendmmsg` on a real UDP socket, with one publisher
/// and `subscribers` subscribers that are `TestPeer`s on real sockets,
/// connected by real ICE and DTLS. What `MediaWorker`'s thread adds is only
/// its `recvmmsg` and epoll wait; here each ingress packet is written into
/// the worker's receive ring as `recvmmsg` would leave it.
///
/// `SFUBenchmarks` measures `forward()` (issue 16 item 6: the benchmark's
/// path is the production path) and `ForwardingPathTests` checks that what
/// it sends is what the subscribers decrypt.
///
/// Not Sendable: one thread drives it.
public final class ForwardingPath {
    public static let publisherID = TransportID(1)
    public static let track = TrackID(1)
    public static let ssrc = SSRC(0x1234_5678)

    public let publisher: TestPeer
    public let subscribers: [TestPeer]
    /// The SRTP profile DTLS agreed for the subscribers (what egress protects with).
    public private(set) var profile: SRTPProfile?
    let socket: UDPSocket
    let rooms: MediaWorkerRooms
    let egress: EgressQueue
    let ingress: DatagramRing
    let router: Router
    /// A VP8 delta-frame packet, rewritten in the ring slot per ingress packet.
    let template: [UInt8]
    let publisherTransport: PeerTransport
    public private(set) var sequence: UInt16 = 1000
    public private(set) var now: MediaTime

    /// Connects every peer (ICE and DTLS on loopback, up to 10 s) and sets
    /// the room up as the signaling layer's jobs would: the publisher's VP8
    /// track, one DownTrack per subscriber, a keyframe so each starts.
    public init(subscribers count: Int) throws {
        let socket = try UDPSocket(address: "127.0.0.1", port: 0)
        _ = vroom_udp_configure(socket.descriptor, 4 << 20, 4 << 20)  // and O_NONBLOCK
        let rooms = MediaWorkerRooms(events: { _ in }, logger: Logger(label: "vroom.forwarding-path"))
        let egress = EgressQueue(descriptor: socket.descriptor)
        let certificate = try DTLSCertificate.generate()
        let room = RoomHandle(rawValue: 1)
        let serverAddress = STUNAddress(ipv4: 127, 0, 0, 1, port: socket.localPort)
        (self.socket, self.rooms, self.egress) = (socket, rooms, egress)
        ingress = rooms.makeIngressRing(capacity: 32)

        func connection(_ id: TransportID, role: MediaEvent.Connection, index: Int) throws -> TestPeer {
            let peer = try TestPeer(ice: ICECredentials(ufrag: "c\(index)u", password: "client-password-\(index)-0123456789"))
            let local = ICECredentials(ufrag: "s\(index)u", password: "server-password-\(index)-0123456789")
            let transport = try PeerTransport(
                certificate: certificate, localICE: local,
                remote: RemoteTransportParameters(
                    ice: peer.ice, fingerprintAlgorithm: "sha-256", fingerprint: peer.certificate.fingerprint),
                dtlsRole: .server, iceMode: .lite, now: MediaClock.now())
            rooms.add(MediaConnection(
                id: id, participant: ParticipantHandle(rawValue: UInt32(index + 1)), room: room, role: role,
                transport: transport))
            try peer.connect(
                serverSDP: ForwardingPath.serverSDP(ice: local, fingerprint: certificate.fingerprint, address: serverAddress),
                dtlsRole: .client)
            return peer
        }
        let publisher = try connection(Self.publisherID, role: .publisher, index: 0)
        let subscribers = try (0..<count).map {
            try connection(Self.subscriberID($0), role: .subscriber, index: $0 + 1)
        }
        (self.publisher, self.subscribers) = (publisher, subscribers)
        let ingress = self.ingress
        let peers = [publisher] + subscribers
        let deadline = MediaClock.now().adding(milliseconds: 10_000)
        while !peers.allSatisfy(\.isConnected) {
            guard MediaClock.now() < deadline else {
                throw ForwardingPathError.notConnected(peers.filter { !$0.isConnected }.count)
            }
            for peer in peers { peer.poll() }
            // MediaWorker's loop, once: what came, then the timers.
            while true {
                let received = vroom_udp_receive_batch(socket.descriptor, ingress.datagrams, UInt32(ingress.capacity))
                guard received > 0 else { break }
                _ = rooms.received(ingress, count: Int(received), stream: 0, now: MediaClock.now(), egress: egress)
                egress.flush()
            }
            _ = rooms.fireTimers(now: MediaClock.now(), egress: egress)
            egress.flush()
            usleep(500)
        }
        guard let publisherTransport = publisher.transport else { throw ForwardingPathError.notConnected(1) }
        self.publisherTransport = publisherTransport
        profile = subscribers.first?.transport?.srtpProfile

        router = rooms.router(for: room)
        try router.addPublisher(transport: Self.publisherID, transportCCExtensionID: 3, midExtensionID: 4)
        try router.addReceiver(
            track: Self.track, publisher: Self.publisherID, kind: .video, mid: "0", payloadType: 96,
            rtxPayloadType: 97, ssrc: Self.ssrc, rtxSSRC: SSRC(0x1234_5679), clockRate: 90_000)
        for index in 0..<count {
            let transport = Self.subscriberID(index)
            try router.addSubscriber(transport: transport, midExtensionID: 9, transportCCExtensionID: 5)
            try router.addDownTrack(
                track: Self.track, subscriber: transport, ssrc: SSRC(UInt32(5000 + index)),
                rtxSSRC: SSRC(UInt32(9000 + index)), payloadType: 100, rtxPayloadType: 101, mid: "1",
                extensionCopies: [HeaderExtensionCopy(publisherID: 2, subscriberID: 3)])
        }
        now = MediaClock.now()
        _ = rooms.fireTimers(now: now, egress: egress)
        egress.flush()
        template = Self.vp8Packet(sequence: 0, pictureID: 100, keyframe: false, ssrc: Self.ssrc)
        let keyframe = Self.vp8Packet(sequence: 0, pictureID: 100, keyframe: true, ssrc: Self.ssrc)
        // The NACK history takes the worker's buffers as it fills: all now,
        // as a worker that has run a while has them.
        router.buffers.reserve(Router.historyCapacity)
        forward(keyframe)  // every DownTrack starts
        for peer in subscribers { _ = peer.drainSocket() }
    }

    public static func subscriberID(_ index: Int) -> TransportID { TransportID(UInt32(100 + index)) }

    /// One ingress packet through the worker's path: written into the
    /// receive ring as the publisher's SRTP (its sequence number and SRTP
    /// index advancing), handed to `MediaWorkerRooms.received`, its copies
    /// protected into the egress queue and sent with one `sendmmsg`, as the
    /// worker does after each receive batch. Allocates nothing.
    @inline(__always)
    public func forward() {
        forward(template)
    }

    /// Datagrams the worker's socket sent so far, and those the kernel refused.
    public var sent: (datagrams: UInt64, failures: UInt64) { (egress.datagramsSent, egress.sendFailures) }

    /// What the worker dropped before the transports and routers saw it.
    public var dropped: UInt64 { rooms.counters.truncated + rooms.counters.unknownTuple + rooms.counters.unexpected }

    private func forward(_ packet: [UInt8]) {
        let slot = ingress.buffer(0)
        packet.withUnsafeBytes { slot.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        slot.storeBytes(of: sequence.bigEndian, toByteOffset: 2, as: UInt16.self)
        guard let length = publisherTransport.protectRTP(slot, length: packet.count) else {
            preconditionFailure("the publisher's SRTP refused a packet")
        }
        ingress.set(0, length: length, destination: publisher.address)
        _ = rooms.received(ingress, count: 1, stream: 0, now: now, egress: egress)
        egress.flush()
        sequence &+= 1
        now = now.adding(nanoseconds: 2_000_000)
    }

    /// Just what `TestPeer.connect` reads: the server's ICE credentials,
    /// fingerprint and one UDP host candidate.
    static func serverSDP(ice: ICECredentials, fingerprint: String, address: STUNAddress) -> String {
        """
        v=0\r
        o=- 1 1 IN IP4 127.0.0.1\r
        s=-\r
        t=0 0\r
        m=video 9 UDP/TLS/RTP/SAVPF 96\r
        a=mid:0\r
        a=ice-ufrag:\(ice.ufrag)\r
        a=ice-pwd:\(ice.password)\r
        a=fingerprint:sha-256 \(fingerprint)\r
        a=candidate:1 1 udp 2130706431 127.0.0.1 \(address.port) typ host\r

        """
    }

    /// A Chrome-like VP8 packet (abs-send-time 2, transport-cc 3, mid 4;
    /// 15-bit picture ID; 1100 bytes of payload).
    public static func vp8Packet(sequence: UInt16, pictureID: UInt16, keyframe: Bool, ssrc: SSRC) -> [UInt8] {
        let header = RTPHeader(
            marker: true, payloadType: 96, sequenceNumber: sequence, timestamp: UInt32(pictureID) &* 3000, ssrc: ssrc,
            extensions: [
                .init(id: 2, value: [0x12, 0x34, 0x56]),
                .init(id: 3, value: [UInt8(sequence >> 8), UInt8(sequence & 0xFF)]),
                .init(id: 4, value: Array("0".utf8)),
            ])
        var payload = [UInt8](repeating: 0, count: 4 + 1100)
        payload[0] = 0x90  // X, S, PID 0
        payload[1] = 0x80  // I
        payload[2] = 0x80 | UInt8(pictureID >> 8 & 0x7F)
        payload[3] = UInt8(pictureID & 0xFF)
        payload[4] = keyframe ? 0x30 : 0x31
        var packet = [UInt8](repeating: 0, count: header.packetSize(payloadCount: payload.count))
        packet.withUnsafeMutableBytes { out in
            payload.withUnsafeBytes { _ = try! RTPHeader.writePacket(header, payload: $0, to: out) }
        }
        return packet
    }
}

public enum ForwardingPathError: Error, CustomStringConvertible {
    case notConnected(Int)

    public var description: String {
        switch self {
        case .notConnected(let count): "\(count) peer(s) did not connect (ICE and DTLS) within 10 s"
        }
    }
}
