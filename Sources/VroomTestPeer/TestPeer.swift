import CVroomUDP
import Foundation
import Packets
import WebRTC

import MediaIO

/// One RTP packet a `TestPeer` received and unprotected.
public struct ReceivedRTP: Equatable {
    public var ssrc: SSRC
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var marker: Bool
    public var payload: [UInt8]

    /// The payload starts a VP8 keyframe (RFC 7741 descriptor, P bit 0).
    public var isVP8Keyframe: Bool {
        payload.withUnsafeBytes { bytes in
            (try? VP8PayloadDescriptor(validating: bytes))?.isKeyframe ?? false
        }
    }
}

/// What a `TestPeer` reads from the server's SDP (offer or answer): enough
/// to reach the server and check its certificate.
public struct ServerTransportSDP {
    public var ice: ICECredentials
    public var fingerprint: String
    public var candidate: STUNAddress
    /// The first passive TCP candidate on 127.0.0.1 (ICE-TCP), if offered.
    public var tcpCandidate: STUNAddress?
    /// Per mid: the m-line's kind, its first payload type and its a=ssrc SSRCs.
    public var media: [(mid: String, kind: String, payloadType: UInt8, ssrcs: [SSRC])]

    public init(_ sdp: String) throws {
        var ufrag: String?
        var password: String?
        var fingerprint: String?
        var candidate: STUNAddress?
        var tcpCandidate: STUNAddress?
        var media: [(mid: String, kind: String, payloadType: UInt8, ssrcs: [SSRC])] = []
        for raw in sdp.split(whereSeparator: \.isNewline) {
            let line = String(raw)
            if line.hasPrefix("m=") {
                let fields = line.dropFirst(2).split(separator: " ")
                media.append((mid: "", kind: String(fields[0]), payloadType: UInt8(fields[3]) ?? 0, ssrcs: []))
            } else if line.hasPrefix("a=mid:") {
                media[media.count - 1].mid = String(line.dropFirst(6))
            } else if line.hasPrefix("a=ssrc:") {
                let value = line.dropFirst(7).split(separator: " ")[0]
                if let ssrc = UInt32(value), !media[media.count - 1].ssrcs.contains(SSRC(ssrc)) {
                    media[media.count - 1].ssrcs.append(SSRC(ssrc))
                }
            } else if line.hasPrefix("a=ice-ufrag:") {
                ufrag = String(line.dropFirst(12))
            } else if line.hasPrefix("a=ice-pwd:") {
                password = String(line.dropFirst(10))
            } else if line.hasPrefix("a=fingerprint:sha-256 ") {
                fingerprint = String(line.dropFirst(22))
            } else if line.hasPrefix("a=candidate:") {
                // foundation component transport priority address port typ host [tcptype passive]
                let fields = line.split(separator: " ")
                if fields.count > 5, fields[4] == "127.0.0.1", let port = UInt16(fields[5]) {
                    let address = STUNAddress(ipv4: 127, 0, 0, 1, port: port)
                    if fields[2].lowercased() == "udp", candidate == nil { candidate = address }
                    if fields[2].lowercased() == "tcp", tcpCandidate == nil, line.hasSuffix("tcptype passive") {
                        tcpCandidate = address
                    }
                }
            }
        }
        guard let ufrag, let password, let fingerprint, let candidate else {
            throw TestPeerError.incompleteServerSDP(sdp)
        }
        self.ice = ICECredentials(ufrag: ufrag, password: password)
        self.fingerprint = fingerprint
        self.candidate = candidate
        self.tcpCandidate = tcpCandidate
        self.media = media
    }

    public func media(mid: String) -> (mid: String, kind: String, payloadType: UInt8, ssrcs: [SSRC])? {
        media.first { $0.mid == mid }
    }
}

public enum TestPeerError: Error {
    case incompleteServerSDP(String)
    case notConnected
    /// ICE-TCP was asked for and the server offered no TCP candidate, or the connect failed.
    case noTCPPath(Int32)
}

/// A WebRTC client in miniature on a real UDP socket on 127.0.0.1 (or, with
/// `overTCP`, an active ICE-TCP connection to the server's passive TCP
/// candidate, RFC 4571 framing): a controlling `PeerTransport` with its own
/// certificate and ICE credentials, driven on the real monotonic clock by
/// `TestPeer.pump`.
/// It writes the SDP a browser would (publish offer, subscriber answer),
/// sends SRTP and unprotects what the server forwards.
///
/// Not Sendable: one test task owns it.
public final class TestPeer {
    public static let loopback: [UInt8] = [127, 0, 0, 1] + [UInt8](repeating: 0, count: 12)

    public let socket: UDPSocket
    public let address: STUNAddress
    public let ice: ICECredentials
    public let certificate: DTLSCertificate
    public private(set) var transport: PeerTransport?
    public private(set) var server: ServerTransportSDP?
    /// Stop running the transport's timers: no more ICE checks (consent).
    public var silent = false

    public private(set) var rtp: [ReceivedRTP] = []
    public private(set) var rtcpPackets = 0
    public private(set) var pictureLossIndications = 0
    /// Generic NACK packets received (the server asking for repairs).
    public private(set) var nackPackets = 0
    /// Per SSRC, the newest sender report's NTP middle 32 bits (what an RR
    /// echoes as LSR) and when it arrived.
    public private(set) var senderReports: [SSRC: (ntpMiddle: UInt32, arrival: MediaTime)] = [:]
    public private(set) var events: [TransportEvent] = []
    public private(set) var dropped: [TransportDropReason] = []
    private let ring = DatagramRing(capacity: 32)
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)

    /// ICE-TCP instead of UDP: every packet goes over `stream`, framed.
    public let overTCP: Bool
    /// SO_RCVBUF of the TCP connection (0: the kernel's default).
    private let tcpReceiveBuffer: Int32
    /// The TCP connection's local port (0: the kernel's choice).
    private let tcpLocalPort: UInt16
    /// The TCP connection's descriptor once `connect` made it, else -1.
    public private(set) var stream: Int32 = -1
    /// Stop reading the TCP connection (a slow reader): what the server
    /// sends piles up in the kernel and then in the server's buffer.
    public var readingPaused = false
    /// The server closed the TCP connection (or it failed).
    public private(set) var streamClosed = false
    private var tcpInput: [UInt8] = []
    private var tcpOutput: [UInt8] = []

    public init(ice: ICECredentials, overTCP: Bool = false, tcpReceiveBuffer: Int32 = 0, tcpLocalPort: UInt16 = 0) throws {
        self.overTCP = overTCP
        self.tcpReceiveBuffer = tcpReceiveBuffer
        self.tcpLocalPort = tcpLocalPort
        socket = try UDPSocket(address: "127.0.0.1", port: 0)
        _ = vroom_udp_configure(socket.descriptor, 1 << 20, 1 << 20)  // and O_NONBLOCK
        address = STUNAddress(ipv4: 127, 0, 0, 1, port: socket.localPort)
        self.ice = ice
        certificate = try DTLSCertificate.generate()
    }

    deinit {
        scratch.deallocate()
        socket.close()
        if stream >= 0 { _ = Glibc.close(stream) }
    }

    public var isConnected: Bool { transport?.isConnected ?? false }

    // MARK: SDP

    private func transportLines(setup: String) -> String {
        """
        c=IN IP4 0.0.0.0\r
        a=rtcp:9 IN IP4 0.0.0.0\r
        a=ice-ufrag:\(ice.ufrag)\r
        a=ice-pwd:\(ice.password)\r
        a=ice-options:trickle\r
        a=fingerprint:sha-256 \(certificate.fingerprint)\r
        a=setup:\(setup)\r

        """
    }

    /// A Chromium-like publish offer reduced to Opus (PT 111, mid 0) and
    /// VP8 (PT 96, mid 1), sendonly, BUNDLE, rtcp-mux, one-byte extmaps.
    public func publishOffer(audioSSRC: SSRC, videoSSRC: SSRC) -> String {
        var text = """
            v=0\r
            o=- 4611731400430051336 2 IN IP4 127.0.0.1\r
            s=-\r
            t=0 0\r
            a=group:BUNDLE 0 1\r
            a=msid-semantic: WMS stream\r
            m=audio 9 UDP/TLS/RTP/SAVPF 111\r

            """
        text += transportLines(setup: "actpass")
        text += """
            a=mid:0\r
            a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level\r
            a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r
            a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r
            a=sendonly\r
            a=msid:stream audio-track\r
            a=rtcp-mux\r
            a=rtpmap:111 opus/48000/2\r
            a=rtcp-fb:111 transport-cc\r
            a=fmtp:111 minptime=10;useinbandfec=1\r
            a=ssrc:\(audioSSRC.rawValue) cname:testpeer\r
            a=ssrc:\(audioSSRC.rawValue) msid:stream audio-track\r
            m=video 9 UDP/TLS/RTP/SAVPF 96\r

            """
        text += transportLines(setup: "actpass")
        text += """
            a=mid:1\r
            a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r
            a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r
            a=sendonly\r
            a=msid:stream video-track\r
            a=rtcp-mux\r
            a=rtcp-rsize\r
            a=rtpmap:96 VP8/90000\r
            a=rtcp-fb:96 goog-remb\r
            a=rtcp-fb:96 transport-cc\r
            a=rtcp-fb:96 ccm fir\r
            a=rtcp-fb:96 nack\r
            a=rtcp-fb:96 nack pli\r
            a=ssrc:\(videoSSRC.rawValue) cname:testpeer\r
            a=ssrc:\(videoSSRC.rawValue) msid:stream video-track\r

            """
        return text
    }

    /// The answer to a server subscriber offer: every m-line accepted
    /// recvonly with the offer's first payload type (no RTX), the same
    /// extmaps, `a=setup:active` (we are the DTLS client).
    public func subscriberAnswer(to offer: String) throws -> String {
        let server = try ServerTransportSDP(offer)
        var text = """
            v=0\r
            o=- 8446744073709551615 2 IN IP4 127.0.0.1\r
            s=-\r
            t=0 0\r
            a=group:BUNDLE \(server.media.map(\.mid).joined(separator: " "))\r

            """
        var section: [String] = []
        func flush() {
            guard !section.isEmpty else { return }
            text += section.map { $0 + "\r\n" }.joined()
            section = []
        }
        var payloadType: UInt8 = 0
        for raw in offer.split(whereSeparator: \.isNewline) {
            let line = String(raw)
            if line.hasPrefix("m=") {
                flush()
                let fields = line.dropFirst(2).split(separator: " ")
                payloadType = UInt8(fields[3]) ?? 0
                section.append("m=\(fields[0]) 9 UDP/TLS/RTP/SAVPF \(payloadType)")
                section.append(contentsOf: transportLines(setup: "active").split(separator: "\r\n").map(String.init))
            } else if section.isEmpty {
                continue
            } else if line.hasPrefix("a=mid:") || line.hasPrefix("a=extmap:") || line == "a=rtcp-mux"
                || line.hasPrefix("a=rtpmap:\(payloadType) ") || line.hasPrefix("a=rtcp-fb:\(payloadType) ")
                || line.hasPrefix("a=fmtp:\(payloadType) ")
            {
                section.append(line)
                if line.hasPrefix("a=mid:") { section.append("a=recvonly") }
            }
        }
        flush()
        return text
    }

    // MARK: Connecting

    /// Reads the server's transport from its SDP and starts ICE (checks
    /// with USE-CANDIDATE) towards its candidate.
    public func connect(serverSDP: String, dtlsRole: DTLSRole, consentCheckInterval: Duration = .seconds(5)) throws {
        let server = try ServerTransportSDP(serverSDP)
        self.server = server
        var remoteAddress = server.candidate
        if overTCP {
            guard let tcp = server.tcpCandidate else { throw TestPeerError.noTCPPath(0) }
            let fd = vroom_tcp_connect(4, tcp.port, Self.loopback, tcpReceiveBuffer, tcpLocalPort)
            guard fd >= 0 else { throw TestPeerError.noTCPPath(-fd) }
            stream = fd
            remoteAddress = tcp
        }
        transport = try PeerTransport(
            certificate: certificate, localICE: ice,
            remote: RemoteTransportParameters(ice: server.ice, fingerprintAlgorithm: "sha-256", fingerprint: server.fingerprint),
            dtlsRole: dtlsRole, iceMode: .controlling(remote: remoteAddress),
            configuration: PeerTransportConfiguration(consentCheckInterval: consentCheckInterval), now: MediaClock.now())
        flush()
    }

    /// Polls every peer (receive, timers, send) every millisecond until
    /// `done` or `timeout`; returns whether `done` came true.
    @discardableResult
    public static func pump(_ peers: [TestPeer], timeout: Duration = .seconds(30), until done: () -> Bool) async -> Bool {
        let deadline = MediaClock.now().adding(nanoseconds: UInt64(timeout.components.seconds) * 1_000_000_000
            + UInt64(timeout.components.attoseconds / 1_000_000_000))
        while true {
            for peer in peers { peer.poll() }
            if done() { return true }
            if MediaClock.now() >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Pumps for `duration` regardless.
    public static func pump(_ peers: [TestPeer], for duration: Duration) async {
        await pump(peers, timeout: duration) { false }
    }

    /// Receives what is waiting, runs due timers, sends what the transport queued.
    public func poll() {
        if stream >= 0 { pollStream() }
        while true {
            let count = vroom_udp_receive_batch(socket.descriptor, ring.datagrams, UInt32(ring.capacity))
            guard count > 0 else { break }
            for index in 0..<Int(count) {
                guard let source = ring.address(index), ring.length(index) > 0 else { continue }
                handle(ring.buffer(index), length: ring.length(index), from: source)
            }
        }
        let now = MediaClock.now()
        if !silent, let transport, let due = transport.nextTimeout, due <= now {
            transport.handleTimeout(now: now)
        }
        flush()
    }

    /// Writes what waits, reads what came (unless paused) and hands each
    /// whole RFC 4571 frame to the transport as a datagram from the server's
    /// TCP candidate.
    private func pollStream() {
        writeStream()
        guard !readingPaused, !streamClosed, let source = server?.tcpCandidate else { return }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBufferPointer { vroom_tcp_read(stream, $0.baseAddress, UInt32($0.count)) }
            if n == -EAGAIN { break }
            if n <= 0 {
                streamClosed = true
                break
            }
            tcpInput.append(contentsOf: chunk[0..<Int(n)])
        }
        var consumed = 0
        while true {
            let next = tcpInput.withUnsafeBytes { RFC4571Framing.next(in: UnsafeRawBufferPointer(rebasing: $0[consumed...]), maximum: 0xFFFF) }
            guard case .packet(let offset, let length) = next else { break }
            let start = consumed + offset
            scratch.copyBytes(from: tcpInput[start..<(start + length)])
            consumed = start + length
            handle(scratch, length: length, from: source)
        }
        tcpInput.removeFirst(consumed)
    }

    private func writeStream() {
        guard !tcpOutput.isEmpty, !streamClosed else { return }
        let n = tcpOutput.withUnsafeBufferPointer { vroom_tcp_write(stream, $0.baseAddress, UInt32($0.count)) }
        if n < 0 {
            streamClosed = true
        } else {
            tcpOutput.removeFirst(Int(n))
        }
    }

    /// Writes raw bytes on the TCP connection as they are (no framing): for
    /// tests of bad framing.
    public func writeRawToStream(_ bytes: [UInt8]) {
        tcpOutput += bytes
        writeStream()
    }

    private func handle(_ buffer: UnsafeMutableRawBufferPointer, length: Int, from source: STUNAddress) {
        guard let transport else { return }
        switch transport.receive(buffer, length: length, from: source, now: MediaClock.now()) {
        case .rtp(let plain):
            guard let view = try? RTPPacketView(validating: UnsafeRawBufferPointer(rebasing: buffer[0..<plain])) else { return }
            rtp.append(
                ReceivedRTP(
                    ssrc: view.ssrc, payloadType: view.payloadType, sequenceNumber: view.sequenceNumber,
                    timestamp: view.timestamp, marker: view.marker, payload: Array(view.payload)))
        case .rtcp(let plain):
            rtcpPackets += 1
            guard let compound = try? RTCPCompoundPacket(validating: UnsafeRawBufferPointer(rebasing: buffer[0..<plain]))
            else { return }
            for view in compound {
                switch try? view.typed() {
                case .pictureLossIndication?, .fullIntraRequest?: pictureLossIndications += 1
                case .genericNACK?: nackPackets += 1
                case .senderReport(let sr)?:
                    senderReports[sr.ssrc] = (UInt32(truncatingIfNeeded: sr.ntpTimestamp >> 16), MediaClock.now())
                default: break
                }
            }
        case .handled: break
        case .dropped(let reason): dropped.append(reason)
        }
    }

    private func flush() {
        guard let transport else { return }
        while let (datagram, destination) = transport.pollTransmit() {
            send(datagram, to: destination.address)
        }
        while let event = transport.pollEvent() { events.append(event) }
    }

    // MARK: Sending

    /// Closes the ICE-TCP connection: this peer leaves its TCP path.
    public func closeStream() {
        guard stream >= 0 else { return }
        _ = Glibc.close(stream)
        stream = -1
        streamClosed = true
    }

    /// Sends raw bytes from this peer's socket.
    public func send(_ bytes: [UInt8], to destination: STUNAddress) {
        if stream >= 0 {
            tcpOutput += [UInt8(truncatingIfNeeded: bytes.count >> 8), UInt8(truncatingIfNeeded: bytes.count)] + bytes
            writeStream()
            return
        }
        _ = bytes.withUnsafeBufferPointer { pointer in
            vroom_udp_send_one(socket.descriptor, pointer.baseAddress, UInt32(pointer.count), 4, destination.port, Self.loopback)
        }
    }

    /// Sends bytes to the server's candidate.
    public func sendToServer(_ bytes: [UInt8]) {
        guard let server else { return }
        send(bytes, to: overTCP ? server.tcpCandidate ?? server.candidate : server.candidate)
    }

    /// Protects an RTP packet and returns the SRTP bytes (sent unless `send` is false).
    @discardableResult
    public func sendRTP(_ header: RTPHeader, payload: [UInt8], send: Bool = true) throws -> [UInt8] {
        guard let transport else { throw TestPeerError.notConnected }
        let length = try payload.withUnsafeBytes { try RTPHeader.writePacket(header, payload: $0, to: scratch) }
        guard let protected = transport.protectRTP(scratch, length: length) else { throw TestPeerError.notConnected }
        let bytes = Array(scratch[0..<protected])
        if send { sendToServer(bytes) }
        return bytes
    }

    /// Protects a compound RTCP packet as given (lengths unchecked) and sends it.
    public func sendRTCP(_ packet: [UInt8]) throws {
        guard let transport else { throw TestPeerError.notConnected }
        scratch.copyBytes(from: packet)
        guard let protected = transport.protectRTCP(scratch, length: packet.count) else { throw TestPeerError.notConnected }
        sendToServer(Array(scratch[0..<protected]))
    }

    /// Reads and discards what waits on the socket; returns how many datagrams.
    public func drainSocket() -> Int {
        var total = 0
        while true {
            let count = vroom_udp_receive_batch(socket.descriptor, ring.datagrams, UInt32(ring.capacity))
            guard count > 0 else { return total }
            total += Int(count)
        }
    }

    /// Forgets what was received so far.
    public func clearReceived() {
        rtp.removeAll()
    }
}

/// A publisher's media source: Opus and VP8 packets with contiguous
/// sequence numbers, timestamps of 20 ms audio / 30 fps video, and VP8
/// payload descriptors with a 15-bit picture ID.
public struct MediaSource {
    public var audioSSRC: SSRC
    public var videoSSRC: SSRC
    public var audioSequence: UInt16 = 1000
    public var videoSequence: UInt16 = 5000
    public var audioTimestamp: UInt32 = 10_000
    public var videoTimestamp: UInt32 = 90_000
    public var pictureID: UInt16 = 100

    public init(audioSSRC: SSRC, videoSSRC: SSRC) {
        self.audioSSRC = audioSSRC
        self.videoSSRC = videoSSRC
    }

    public mutating func audioPacket() -> (RTPHeader, [UInt8]) {
        defer {
            audioSequence &+= 1
            audioTimestamp &+= 960
        }
        let header = RTPHeader(
            marker: false, payloadType: 111, sequenceNumber: audioSequence, timestamp: audioTimestamp, ssrc: audioSSRC,
            extensions: [.init(id: 4, value: Array("0".utf8))])
        // TOC 0x78: config 15 (CELT FB 20 ms), mono, one frame.
        return (header, [0x78] + [UInt8](repeating: UInt8(truncatingIfNeeded: audioSequence), count: 40))
    }

    /// One VP8 frame in one packet (marker set).
    public mutating func videoPacket(keyframe: Bool) -> (RTPHeader, [UInt8]) {
        defer {
            videoSequence &+= 1
            videoTimestamp &+= 3000
            pictureID = (pictureID &+ 1) & 0x7FFF
        }
        let header = RTPHeader(
            marker: true, payloadType: 96, sequenceNumber: videoSequence, timestamp: videoTimestamp, ssrc: videoSSRC,
            extensions: [.init(id: 4, value: Array("1".utf8))])
        // RFC 7741: X=1 S=1 PID=0; I=1; M=1 with a 15-bit picture ID.
        var payload: [UInt8] = [0x90, 0x80, 0x80 | UInt8(pictureID >> 8), UInt8(pictureID & 0xFF)]
        if keyframe {
            // RFC 6386 9.1: frame tag (P=0, show), start code, 320x180.
            payload += [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xB4, 0x00]
        } else {
            payload += [0x11, 0x02, 0x00]
        }
        payload += [UInt8](repeating: 0xA5, count: 100)
        return (header, payload)
    }
}
