import Packets
import SFU
import WebRTC

/// One packet the router handed to the sink.
struct SentPacket {
    var transport: TransportID
    var bytes: [UInt8]
    var kind: EgressKind

    /// The RTP header and payload, parsed (the test fails on malformed output).
    func rtp() throws -> ParsedRTP {
        try bytes.withUnsafeBytes { try ParsedRTP(RTPPacketView(validating: $0)) }
    }

    /// The RTCP packets of the compound, as owned values.
    func rtcp() throws -> [ParsedRTCP] {
        try bytes.withUnsafeBytes { raw in
            var out: [ParsedRTCP] = []
            for view in try RTCPCompoundPacket(validating: raw) {
                switch try view.typed() {
                case .senderReport(let sr): out.append(.sr(SenderReport(sr)))
                case .receiverReport(let rr): out.append(.rr(ReceiverReport(rr)))
                case .pictureLossIndication(let pli): out.append(.pli(PictureLossIndication(pli)))
                case .transportCCFeedback(let fb): out.append(.twcc(TransportCCFeedback(fb)))
                case .genericNACK(let nack): out.append(.nack(GenericNACK(nack)))
                default: out.append(.other)
                }
            }
            return out
        }
    }
}

enum ParsedRTCP: Equatable {
    case sr(SenderReport)
    case rr(ReceiverReport)
    case pli(PictureLossIndication)
    case twcc(TransportCCFeedback)
    case nack(GenericNACK)
    case other
}

/// An RTP packet's fields, copied out of a view.
struct ParsedRTP: Equatable {
    var payloadType: UInt8
    var sequenceNumber: UInt16
    var timestamp: UInt32
    var ssrc: SSRC
    var marker: Bool
    var extensions: [UInt8: [UInt8]]
    var payload: [UInt8]

    init(_ view: RTPPacketView) {
        payloadType = view.payloadType
        sequenceNumber = view.sequenceNumber
        timestamp = view.timestamp
        ssrc = view.ssrc
        marker = view.marker
        var extensions: [UInt8: [UInt8]] = [:]
        for element in view.headerExtensions { extensions[element.id] = Array(element.value) }
        self.extensions = extensions
        payload = Array(view.payload)
    }

    /// The VP8 picture ID of the payload's descriptor.
    var pictureID: UInt16? {
        payload.withUnsafeBytes { (try? VP8PayloadDescriptor(validating: $0))?.pictureID }
    }
}

/// Collects everything the router sends. Its one slot is allocated once and
/// never freed: a test process's lifetime.
struct CollectingSink: PacketSink {
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1356, alignment: 16)
    var sent: [SentPacket] = []
    /// nil slots: the worker's ring is full.
    var full = false
    /// Where each forwarded packet's payload tail was read from (the
    /// router's caller's memory: never a copy).
    var tails: [UnsafeRawBufferPointer] = []

    mutating func slot(for transport: TransportID) -> UnsafeMutableRawBufferPointer? {
        full ? nil : scratch
    }

    mutating func commit(transport: TransportID, length: Int, kind: EgressKind) {
        sent.append(SentPacket(transport: transport, bytes: Array(scratch[0..<length]), kind: kind))
    }

    mutating func commit(transport: TransportID, length: Int, appending tail: UnsafeRawBufferPointer) {
        sent.append(SentPacket(transport: transport, bytes: Array(scratch[0..<length]) + Array(tail), kind: .rtp))
        tails.append(tail)
    }

    /// Takes what was sent so far.
    mutating func drain() -> [SentPacket] {
        defer { sent.removeAll() }
        return sent
    }
}

extension Array where Element == SentPacket {
    func rtp(to transport: TransportID) throws -> [ParsedRTP] {
        try filter { $0.transport == transport && $0.kind == .rtp }.map { try $0.rtp() }
    }

    func rtcp(to transport: TransportID) throws -> [ParsedRTCP] {
        try filter { $0.transport == transport && $0.kind == .rtcp }.flatMap { try $0.rtcp() }
    }
}

/// Builds the packets a Chrome-like publisher sends.
enum Publish {
    static func vp8(
        sequence: UInt16, timestamp: UInt32, ssrc: SSRC, payloadType: UInt8 = 96, pictureID: UInt16 = 1,
        keyframe: Bool = false, marker: Bool = true, extensions: [RTPHeader.Extension] = [],
        payloadBytes: Int = 200, fill: UInt8 = 0xAB
    ) -> [UInt8] {
        let header = RTPHeader(
            marker: marker, payloadType: payloadType, sequenceNumber: sequence, timestamp: timestamp, ssrc: ssrc,
            extensions: extensions)
        var payload = [UInt8](repeating: fill, count: 5 + payloadBytes)
        payload[0] = 0x90  // X, S, PID 0
        payload[1] = 0x80  // I
        payload[2] = 0x80 | UInt8(pictureID >> 8 & 0x7F)
        payload[3] = UInt8(pictureID & 0xFF)
        payload[4] = keyframe ? 0x30 : 0x31  // VP8 header P bit
        return write(header, payload)
    }

    static func opus(
        sequence: UInt16, timestamp: UInt32, ssrc: SSRC, payloadType: UInt8 = 111,
        extensions: [RTPHeader.Extension] = []
    ) -> [UInt8] {
        let header = RTPHeader(
            payloadType: payloadType, sequenceNumber: sequence, timestamp: timestamp, ssrc: ssrc,
            extensions: extensions)
        return write(header, [0x78] + [UInt8](repeating: 0x11, count: 60))
    }

    /// A padding-only probe: no payload, 200 bytes of padding.
    static func padding(sequence: UInt16, timestamp: UInt32, ssrc: SSRC, payloadType: UInt8 = 96) -> [UInt8] {
        let header = RTPHeader(
            payloadType: payloadType, sequenceNumber: sequence, timestamp: timestamp, ssrc: ssrc, paddingLength: 200)
        return write(header, [])
    }

    /// An RTX packet (RFC 4588) carrying `original`'s payload.
    static func rtx(
        of original: [UInt8], sequence: UInt16, ssrc: SSRC, payloadType: UInt8 = 97,
        extensions: [RTPHeader.Extension] = []
    ) -> [UInt8] {
        original.withUnsafeBytes { raw in
            let view = try! RTPPacketView(validating: raw)
            let header = RTPHeader(
                marker: view.marker, payloadType: payloadType, sequenceNumber: sequence, timestamp: view.timestamp,
                ssrc: ssrc, extensions: extensions)
            let osn = view.sequenceNumber
            return write(header, [UInt8(osn >> 8), UInt8(osn & 0xFF)] + Array(view.payload))
        }
    }

    static func write(_ header: RTPHeader, _ payload: [UInt8]) -> [UInt8] {
        var packet = [UInt8](repeating: 0, count: header.packetSize(payloadCount: payload.count))
        packet.withUnsafeMutableBytes { out in
            payload.withUnsafeBytes { _ = try! RTPHeader.writePacket(header, payload: $0, to: out) }
        }
        return packet
    }
}

extension Router {
    /// Feeds a test packet (copied, as the worker's ingress slot would hold it).
    func receive(_ packet: [UInt8], from transport: TransportID, now: MediaTime, into sink: inout CollectingSink) {
        var copy = packet
        copy.withUnsafeMutableBytes { receiveRTP($0, length: packet.count, from: transport, now: now, into: &sink) }
    }

    func receiveControl(
        _ packet: some RTCPPacketWriter, from transport: TransportID, now: MediaTime, into sink: inout CollectingSink
    ) {
        var bytes = [UInt8](repeating: 0, count: packet.encodedSize)
        let length = bytes.withUnsafeMutableBytes { try! packet.write(to: $0) }
        bytes.withUnsafeMutableBytes { receiveRTCP($0, length: length, from: transport, now: now, into: &sink) }
    }
}

/// The room most tests use: publisher T1 (Chrome: VP8 96/RTX 97, Opus 111,
/// transport-cc 3, mid 4, abs-send-time 2) and two subscribers: T10
/// (aiortc-like: VP8 97, RTX 98, Opus 96, mid 1, no transport-cc) and T11
/// (Chrome-like: VP8 96 without RTX, Opus 111, mid 4, transport-cc 3).
struct Room {
    static let publisher = TransportID(1)
    static let alice = TransportID(10)
    static let bob = TransportID(11)
    static let video = TrackID(1)
    static let audio = TrackID(2)
    static let videoSSRC = SSRC(0xAAAA_0001)
    static let rtxSSRC = SSRC(0xAAAA_0002)
    static let audioSSRC = SSRC(0xAAAA_0003)

    let router = Router()
    var sink = CollectingSink()
    var now = MediaTime.milliseconds(10_000)

    /// `relayed`: the publisher is another worker's connection (its packets come through a relay).
    init(declareSSRCs: Bool = true, subscribe: Bool = true, relayed: Bool = false) throws {
        try router.addPublisher(transport: Self.publisher, transportCCExtensionID: 3, midExtensionID: 4, relayed: relayed)
        try router.addReceiver(
            track: Self.video, publisher: Self.publisher, kind: .video, mid: "0", payloadType: 96,
            rtxPayloadType: 97, ssrc: declareSSRCs ? Self.videoSSRC : nil,
            rtxSSRC: declareSSRCs ? Self.rtxSSRC : nil, clockRate: 90_000)
        try router.addReceiver(
            track: Self.audio, publisher: Self.publisher, kind: .audio, mid: "1", payloadType: 111,
            ssrc: declareSSRCs ? Self.audioSSRC : nil, clockRate: 48_000)
        try router.addSubscriber(transport: Self.alice, midExtensionID: 1, transportCCExtensionID: nil)
        try router.addSubscriber(transport: Self.bob, midExtensionID: 4, transportCCExtensionID: 3)
        if subscribe {
            try subscribeAlice()
            try subscribeBob()
        }
    }

    func subscribeAlice() throws {
        try router.addDownTrack(
            track: Self.video, subscriber: Self.alice, ssrc: SSRC(0xA1), rtxSSRC: SSRC(0xA2), payloadType: 97,
            rtxPayloadType: 98, mid: "v0", initialSequenceNumber: 100)
        try router.addDownTrack(
            track: Self.audio, subscriber: Self.alice, ssrc: SSRC(0xA3), payloadType: 96, mid: "a0",
            initialSequenceNumber: 500)
    }

    func subscribeBob() throws {
        try router.addDownTrack(
            track: Self.video, subscriber: Self.bob, ssrc: SSRC(0xB1), payloadType: 96, mid: "3",
            extensionCopies: [HeaderExtensionCopy(publisherID: 2, subscriberID: 2)], initialSequenceNumber: 60_000)
        try router.addDownTrack(
            track: Self.audio, subscriber: Self.bob, ssrc: SSRC(0xB3), payloadType: 111, mid: "4",
            initialSequenceNumber: 7)
    }

    mutating func send(_ packet: [UInt8]) {
        router.receive(packet, from: Self.publisher, now: now, into: &sink)
    }

    mutating func advance(ms: UInt64) {
        now = now.adding(milliseconds: ms)
    }

    @discardableResult
    mutating func tick() -> MediaTime {
        router.tick(now: now, into: &sink)
    }

    /// A video frame of one packet at 30 fps: picture `n`, sequence 1000+n.
    mutating func frame(_ n: UInt16, keyframe: Bool = false, ssrc: SSRC = Room.videoSSRC, base: UInt16 = 1000) {
        send(
            Publish.vp8(
                sequence: base &+ n, timestamp: 90_000 &+ UInt32(n) * 3000, ssrc: ssrc, pictureID: 200 &+ n,
                keyframe: keyframe, extensions: [.init(id: 2, value: [1, 2, 3]), .init(id: 3, value: [0, UInt8(n & 0xFF)])]))
        advance(ms: 33)
    }
}
