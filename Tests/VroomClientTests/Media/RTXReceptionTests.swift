import NIOCore
import NIOPosix
import Packets
import SDP
import Testing
import WebRTC

@testable import VroomClient

/// RTX (RFC 4588) on the subscriber connection, at the engine's receive
/// path: decrypted packets handed straight to a real `MediaEngine` that
/// answered a real server offer (one video track, SSRC 20, RTX SSRC 21 on
/// PT 97), no network. Repairs must reach the frame assembler as the
/// original packets; the server's padding-only probes must reach
/// transport-cc and nothing else.
@Suite struct RTXReceptionTests {
    static let media = SSRC(20)
    static let rtx = SSRC(21)
    static let transportCCID: UInt8 = 3

    final class Harness: Sendable {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let log = EngineEventLog()
        let engine: MediaEngine

        init() async throws {
            let loop = group.next()
            let certificate = try DTLSCertificate.generate()
            let offer = try #require(
                try SubscriberOffer(
                    slots: [
                        SubscriberOfferSlot(
                            mid: "0", kind: .video,
                            track: SubscriberOfferTrack(participantSID: "PA1", trackSID: "TR_V", ssrc: media, rtxSSRC: rtx))
                    ],
                    transport: NegotiationTransport(
                        ice: ICECredentials(ufrag: "srvr", password: "serverpasswordserverpass"),
                        fingerprint: certificate.fingerprint, candidates: [STUNAddress(ipv4: 127, 0, 0, 1, port: 9)]),
                    sessionID: "1", sessionVersion: 1))
            let log = log
            engine = try await loop.submit {
                let engine = try MediaEngine(eventLoop: loop, configuration: MediaEngineConfiguration()) { log.append($0) }
                _ = try engine.answerSubscribeOffer(
                    offer.text, tracks: [RemoteMediaTrack(mid: "0", trackSid: "TR_V", participantSid: "PA1", kind: .video)])
                return engine
            }.get()
        }

        var frames: [RemoteVideoFrame] { log.videoFrames }

        /// Hands one plaintext RTP packet to the engine as if SRTP had just decrypted it.
        func receive(
            ssrc: SSRC, payloadType: UInt8, sequenceNumber: UInt16, marker: Bool = false, transportSequence: UInt16,
            payload: [UInt8], padding: Int = 0
        ) async throws {
            let header = RTPHeader(
                marker: marker, payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: 9000, ssrc: ssrc,
                extensions: [.init(id: RTXReceptionTests.transportCCID, value: [UInt8(transportSequence >> 8), UInt8(transportSequence & 0xFF)])],
                paddingLength: padding)
            var bytes = [UInt8](repeating: 0, count: 1500)
            let length = try bytes.withUnsafeMutableBytes { buffer in
                try payload.withUnsafeBytes { try RTPHeader.writePacket(header, payload: $0, to: buffer) }
            }
            let packet = Array(bytes[..<length])
            let engine = engine
            try await engine.eventLoop.submit { packet.withUnsafeBytes { engine.handleSubscriberRTP($0) } }.get()
        }

        func on<R: Sendable>(_ body: @escaping @Sendable (MediaEngine) -> R) async throws -> R {
            let engine = engine
            return try await engine.eventLoop.submit { body(engine) }.get()
        }

        func stop() async {
            let engine = engine
            try? await engine.eventLoop.submit { engine.close() }.get()
            try? await group.shutdownGracefully()
        }
    }

    /// One keyframe in three VP8 packets (descriptor byte 0x10 = S bit on
    /// the first, 0x00 on the others; RFC 7741 4.2).
    static let frame: [UInt8] = [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A] + (0..<24).map { UInt8($0) }
    static let packets: [[UInt8]] = [
        [0x10] + frame[0..<10], [0x00] + frame[10..<20], [0x00] + frame[20...],
    ]

    /// The middle packet is lost; its repair comes on the RTX SSRC with the
    /// RTX payload type and the OSN in front: the frame then completes.
    @Test func repairOnRTXCompletesTheFrame() async throws {
        let harness = try await Harness()
        defer { Task { await harness.stop() } }
        try await harness.receive(ssrc: Self.media, payloadType: 96, sequenceNumber: 100, transportSequence: 1, payload: Self.packets[0])
        try await harness.receive(
            ssrc: Self.media, payloadType: 96, sequenceNumber: 102, marker: true, transportSequence: 2, payload: Self.packets[2])
        #expect(harness.frames.isEmpty)
        // RTX sequence numbers are the RTX stream's own; OSN 101 = 0x0065.
        try await harness.receive(
            ssrc: Self.rtx, payloadType: SubscriberOffer.rtxPayloadType, sequenceNumber: 7, transportSequence: 3,
            payload: [0x00, 0x65] + Self.packets[1])
        let frames = harness.frames
        #expect(frames.count == 1)
        #expect(frames.first?.data == Self.frame)
        #expect(frames.first?.isKeyframe == true)
        let statistics = try await harness.on { $0.statistics() }
        let video = try #require(statistics.remoteTracks.first)
        #expect(video.packetsReceived == 3)
        #expect(video.retransmissionsReceived == 1)
        #expect(video.packetsLost == 0)
        #expect(video.framesReceived == 1)
    }

    /// Padding-only RTX packets (the server's probes) are in the next
    /// transport-cc feedback but reach neither the assembler nor the media
    /// counters; nor does an RTX packet with a payload type that is not RTX.
    @Test func paddingOnRTXIsCountedByTransportCCAndDropped() async throws {
        let harness = try await Harness()
        defer { Task { await harness.stop() } }
        for index in 0..<5 {
            try await harness.receive(
                ssrc: Self.rtx, payloadType: SubscriberOffer.rtxPayloadType, sequenceNumber: UInt16(index),
                transportSequence: UInt16(10 + index), payload: [], padding: 255)
        }
        let feedback = try await harness.on { engine in
            engine.transportCC.nextFeedback(senderSSRC: SSRC(1), mediaSSRC: RTXReceptionTests.media)
        }
        #expect(feedback?.baseSequenceNumber == 10)
        #expect(feedback?.deltas.count == 5)
        #expect(feedback?.deltas.allSatisfy { $0 != nil } == true)
        #expect(harness.frames.isEmpty)
        let statistics = try await harness.on { $0.statistics() }
        let video = try #require(statistics.remoteTracks.first)
        #expect(video.packetsReceived == 0)
        #expect(video.bytesReceived == 0)
        #expect(video.paddingPacketsReceived == 5)
        #expect(video.retransmissionsReceived == 0)
        // A probe leaves no trace in the assembler either: the next frame
        // arrives whole and first.
        for (index, payload) in Self.packets.enumerated() {
            try await harness.receive(
                ssrc: Self.media, payloadType: 96, sequenceNumber: 500 + UInt16(index), marker: index == 2,
                transportSequence: 20 + UInt16(index), payload: payload)
        }
        #expect(harness.frames.map(\.data) == [Self.frame])
    }
}
