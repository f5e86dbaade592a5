import Packets
import SFU

/// A simulcast publisher (layers q, h, f, one packet per layer in turn, a
/// keyframe on each layer every `keyframeEvery` of its packets) and N
/// subscribers that keep switching: every `flipEvery` ingress packets each
/// subscriber's render size flips between 320x180 (q) and none (f), even
/// subscribers one way, odd ones the other, so half switch up and half
/// down at the next keyframes while the set of layers asked of the
/// publisher stays {q, f} (no event). What the measured loop exercises:
/// per-layer routing, the DownTracks' layer filter, switches at keyframes
/// (munger resyncs, stats), PLIs on the target layer, and the render-size
/// command itself.
final class SimulcastScenario {
    let router = Router()
    var sink: RingSink
    let track = TrackID(1)
    let publisher = TransportID(1)
    let subscribers: [TransportID]
    static let ssrcs = [SSRC(0x1234_0000), SSRC(0x1234_0010), SSRC(0x1234_0020)]
    let keyframeEvery = 30
    let flipEvery = 300
    var sequences: [UInt16] = [1000, 2000, 3000]
    var sent: [Int] = [0, 0, 0]
    var pushes = 0
    var flipped = false
    var now = MediaTime.milliseconds(1000)
    /// Per layer: a delta packet and a keyframe, built once.
    let deltas: [[UInt8]]
    let keyframes: [[UInt8]]
    let buffer: UnsafeMutableRawBufferPointer

    init(subscribers count: Int) {
        sink = RingSink(slotCount: 256)
        try! router.addPublisher(
            transport: publisher, transportCCExtensionID: 3, midExtensionID: 4, ridExtensionID: 10,
            repairedRIDExtensionID: 11)
        let layers = ["q", "h", "f"].enumerated().map { SimulcastLayer(rid: $1, ssrc: Self.ssrcs[$0]) }
        try! router.addReceiver(
            track: track, publisher: publisher, kind: .video, mid: "0", payloadType: 96, rtxPayloadType: 97,
            clockRate: 90_000, layers: layers)
        subscribers = (0..<count).map { TransportID(UInt32(100 + $0)) }
        for (index, transport) in subscribers.enumerated() {
            try! router.addSubscriber(transport: transport, midExtensionID: 9, transportCCExtensionID: 5)
            try! router.addDownTrack(
                track: track, subscriber: transport, ssrc: SSRC(UInt32(5000 + index)),
                rtxSSRC: SSRC(UInt32(9000 + index)), payloadType: 100, rtxPayloadType: 101, mid: "1",
                extensionCopies: [HeaderExtensionCopy(publisherID: 2, subscriberID: 3)])
        }
        deltas = Self.ssrcs.map { makePacket(sequence: 0, pictureID: 1, keyframe: false, ssrc: $0) }
        keyframes = Self.ssrcs.map { makePacket(sequence: 0, pictureID: 1, keyframe: true, ssrc: $0) }
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
        // Each layer's NACK history takes its buffers as it fills: all of
        // them now, as a room that has run for a while has.
        router.buffers.reserve(Self.ssrcs.count * Router.historyCapacity)
        flip()
        _ = router.tick(now: now, into: &sink)
        // Warm up: every layer's first keyframes, both render sizes, the
        // dictionaries and the events grown once.
        for _ in 0..<(2 * flipEvery) { push() }
        _ = router.takeEvents()
        _ = router.tick(now: now, into: &sink)
    }

    /// Each subscriber's render size the other way round.
    func flip() {
        flipped.toggle()
        for (index, transport) in subscribers.enumerated() {
            let small = (index % 2 == 0) == flipped
            try! router.setRenderDimensions(
                track: track, subscriber: transport, width: small ? 320 : nil, height: small ? 180 : nil, now: now)
        }
    }

    @inline(__always)
    func push() {
        let layer = pushes % 3
        pushes &+= 1
        let isKeyframe = sent[layer] % keyframeEvery == 0
        sent[layer] &+= 1
        let packet = isKeyframe ? keyframes[layer] : deltas[layer]
        packet.withUnsafeBytes { buffer.copyMemory(from: $0) }
        buffer.storeBytes(of: sequences[layer].bigEndian, toByteOffset: 2, as: UInt16.self)
        router.receiveRTP(buffer, length: packet.count, from: publisher, now: now, into: &sink)
        sequences[layer] &+= 1
        if layer == 2 { now = now.adding(nanoseconds: 11_000_000) }
        if pushes % flipEvery == 0 { flip() }
    }

    /// Spatial switches so far, over all subscribers.
    var switches: UInt64 {
        subscribers.reduce(0) { $0 + (router.downTrackStats(track: track, subscriber: $1)?.layerSwitches ?? 0) }
    }
}
