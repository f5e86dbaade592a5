import Packets
import WebRTC
@testable import SFU

/// VP8 payloads with the descriptor fields simulcast needs (RFC 7741): a
/// 15-bit picture ID, TL0PICIDX, TID and Y, and on a keyframe the frame
/// size (RFC 6386 9.1).
enum SimulcastPayload {
    static func vp8(
        pictureID: UInt16, tl0PicIdx: UInt8, temporalLayer: UInt8 = 0, layerSync: Bool = false,
        keyframe: Bool = false, startOfFrame: Bool = true, size: (width: UInt16, height: UInt16)? = nil,
        fill: UInt8 = 0xAB, payloadBytes: Int = 100
    ) -> [UInt8] {
        var payload: [UInt8] = [
            startOfFrame ? 0x90 : 0x80,  // X, S, PID 0
            0xE0,  // I, L, T
            0x80 | UInt8(pictureID >> 8 & 0x7F), UInt8(pictureID & 0xFF),
            tl0PicIdx,
            temporalLayer << 6 | (layerSync ? 0x20 : 0),
        ]
        if keyframe {
            let size = size ?? (0, 0)
            payload += [
                0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, UInt8(size.width & 0xFF), UInt8(size.width >> 8),
                UInt8(size.height & 0xFF), UInt8(size.height >> 8),
            ]
        } else {
            payload += [0x31, 0x00, 0x00]
        }
        return payload + [UInt8](repeating: fill, count: payloadBytes)
    }
}

/// A publisher (T1) with one simulcast VP8 track of three layers q, h, f
/// (PT 96, RTX 97; mid 4, rid 10, repaired rid 11, transport-cc 3) and an
/// audio track, and the two subscribers of `Room` (alice with RTX, bob
/// without). Each layer has its own SSRCs, sequence numbers, timestamps,
/// picture IDs and TL0PICIDX, as Chrome sends them; payload bytes are
/// filled with 0xA0 + layer so a test can tell the layers apart.
struct SimulcastRoom {
    static let publisher = TransportID(1)
    static let alice = TransportID(10)
    static let bob = TransportID(11)
    static let video = TrackID(1)
    static let audio = TrackID(2)
    static let rids = ["q", "h", "f"]
    static let sizes: [(width: UInt16, height: UInt16)] = [(320, 180), (640, 360), (1280, 720)]
    static func ssrc(_ layer: Int) -> SSRC { SSRC(0xC000_0000 | UInt32(layer) << 4) }
    static func rtxSSRC(_ layer: Int) -> SSRC { SSRC(0xC000_0000 | UInt32(layer) << 4 | 1) }
    static let audioSSRC = SSRC(0xAAAA_0003)

    let router = Router()
    var sink = CollectingSink()
    var now = MediaTime.milliseconds(10_000)
    /// Per layer: frames sent so far.
    var frames = [0, 0, 0]

    init(declareSSRCs: Bool = true, subscribe: Bool = true, declareSizes: Bool = false) throws {
        try router.addPublisher(
            transport: Self.publisher, transportCCExtensionID: 3, midExtensionID: 4, ridExtensionID: 10,
            repairedRIDExtensionID: 11)
        let layers = (0..<3).map { index in
            SimulcastLayer(
                rid: Self.rids[index], ssrc: declareSSRCs ? Self.ssrc(index) : nil,
                rtxSSRC: declareSSRCs ? Self.rtxSSRC(index) : nil,
                width: declareSizes ? Int(Self.sizes[index].width) : nil,
                height: declareSizes ? Int(Self.sizes[index].height) : nil)
        }
        try router.addReceiver(
            track: Self.video, publisher: Self.publisher, kind: .video, mid: "0", payloadType: 96,
            rtxPayloadType: 97, clockRate: 90_000, layers: layers)
        try router.addReceiver(
            track: Self.audio, publisher: Self.publisher, kind: .audio, mid: "1", payloadType: 111,
            ssrc: Self.audioSSRC, clockRate: 48_000)
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
    }

    func subscribeBob() throws {
        try router.addDownTrack(
            track: Self.video, subscriber: Self.bob, ssrc: SSRC(0xB1), payloadType: 96, mid: "3",
            initialSequenceNumber: 60_000)
    }

    /// The packet of `layer`'s frame `n` (one packet per frame): sequence
    /// 1000 * (layer + 1) + n, timestamp 1,000,000 * layer + 3000 n, picture
    /// ID 300 * layer + n, TL0PICIDX 50 * layer + n (every frame TID 0).
    static func packet(
        layer: Int, frame n: Int, keyframe: Bool = false, withRID: Bool = false, temporalLayer: UInt8 = 0,
        tl0PicIdx: UInt8? = nil
    ) -> [UInt8] {
        var extensions: [RTPHeader.Extension] = []
        if withRID {
            extensions = [.init(id: 4, value: Array("0".utf8)), .init(id: 10, value: Array(rids[layer].utf8))]
        }
        let header = RTPHeader(
            marker: true, payloadType: 96, sequenceNumber: UInt16(1000 * (layer + 1) + n),
            timestamp: UInt32(1_000_000 * layer + 3000 * n), ssrc: ssrc(layer), extensions: extensions)
        let payload = SimulcastPayload.vp8(
            pictureID: UInt16(300 * layer + n), tl0PicIdx: tl0PicIdx ?? UInt8(truncatingIfNeeded: 50 * layer + n),
            temporalLayer: temporalLayer, keyframe: keyframe, size: sizes[layer], fill: 0xA0 + UInt8(layer))
        return Publish.write(header, payload)
    }

    mutating func send(_ packet: [UInt8]) {
        router.receive(packet, from: Self.publisher, now: now, into: &sink)
    }

    /// One frame on each of `layers` (keyframes on `keyframes`), then 33 ms.
    mutating func frame(layers: [Int] = [0, 1, 2], keyframes: Set<Int> = []) {
        for layer in layers {
            send(Self.packet(layer: layer, frame: frames[layer], keyframe: keyframes.contains(layer)))
            frames[layer] += 1
        }
        now = now.adding(milliseconds: 33)
    }

    mutating func advance(ms: UInt64) {
        now = now.adding(milliseconds: ms)
    }

    @discardableResult
    mutating func tick() -> MediaTime {
        router.tick(now: now, into: &sink)
    }

    /// The media SSRCs of the PLIs sent to the publisher.
    static func pliTargets(_ sent: [SentPacket]) throws -> [SSRC] {
        try sent.rtcp(to: publisher).compactMap { if case .pli(let pli) = $0 { pli.mediaSSRC } else { nil } }
    }

    /// Which layer a forwarded packet came from (its payload fill byte).
    static func layer(of packet: ParsedRTP) -> Int? {
        guard let last = packet.payload.last, last >= 0xA0, last <= 0xA2 else { return nil }
        return Int(last - 0xA0)
    }
}

extension ParsedRTP {
    /// The VP8 TL0PICIDX of the payload's descriptor.
    var tl0PicIdx: UInt8? {
        payload.withUnsafeBytes { (try? VP8PayloadDescriptor(validating: $0))?.tl0PicIdx }
    }
}
