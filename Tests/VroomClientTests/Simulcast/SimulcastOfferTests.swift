import NIOCore
import NIOPosix
import Packets
import SDP
import Testing
import WebRTC

@testable import VroomClient

/// The publish offer of a simulcast camera (PROTOCOL.md section 7, RFC
/// 8853) as a real `MediaEngine` writes it, how an answer's
/// `a=simulcast:recv` picks the layers sent, and the RID on the packets.
@Suite struct SimulcastOfferTests {
    /// Runs `body` on a fresh engine's loop (its sockets bind 127.0.0.1).
    func withEngine<R: Sendable>(_ body: @escaping @Sendable (MediaEngine) throws -> R) async throws -> R {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let result = try await loop.submit {
            let engine = try MediaEngine(eventLoop: loop, configuration: MediaEngineConfiguration(), onEvent: { _ in })
            defer { engine.close() }
            return try body(engine)
        }.get()
        try await group.shutdownGracefully()
        return result
    }

    @Test func simulcastVideoLineCarriesRIDsAndSimulcastAndNoSSRC() async throws {
        let sdp = try await withEngine { engine in
            engine.setLocalTracks([
                LocalMediaTrack(name: "mic", kind: .audio, enabled: true),
                LocalMediaTrack(name: "camera", kind: .video, enabled: true, rids: ["q", "h", "f"]),
                LocalMediaTrack(name: "screen", kind: .video, enabled: true),
            ])
            return engine.makePublishOffer(iceRestart: false).sdp
        }
        let offer = try SessionDescription(parsing: sdp)
        let camera = try #require(offer.media.first { $0.mid == "1" })
        #expect(camera.rids == ["q", "h", "f"].map { SDPRID(id: $0, direction: .send) })
        #expect(camera.simulcast?.send == [[.init(rid: "q")], [.init(rid: "h")], [.init(rid: "f")]])
        #expect(camera.simulcast?.recv == [])
        #expect(camera.extmapID(for: SDPExtmap.ridURI) == UInt16(PublishOfferWriter.ridID))
        #expect(camera.extmapID(for: SDPExtmap.midURI) == UInt16(PublishOfferWriter.midID))
        // No RTX in this SDK, so no repaired-rtp-stream-id either.
        #expect(camera.extmapID(for: SDPExtmap.repairedRIDURI) == nil)
        #expect(camera.ssrcs.isEmpty)
        #expect(camera.msid == SDPMediaStreamID(streamID: camera.msid?.streamID ?? "", trackID: "camera"))
        #expect(sdp.contains("a=simulcast:send q;h;f\r\n"))
        #expect(sdp.contains("a=rid:q send\r\na=rid:h send\r\na=rid:f send\r\n"))
        // The other m-lines are as before: no RID, their a=ssrc.
        for mid in ["0", "2"] {
            let media = try #require(offer.media.first { $0.mid == mid })
            #expect(media.rids.isEmpty && media.simulcast == nil && media.extmapID(for: SDPExtmap.ridURI) == nil)
            #expect(!media.ssrcs.isEmpty)
        }
    }

    /// Today's server (no simulcast) still answers the offer: one layer.
    @Test func serverWithoutSimulcastStillAnswersTheOffer() async throws {
        let sdp = try await withEngine { engine in
            engine.setLocalTracks([LocalMediaTrack(name: "camera", kind: .video, enabled: true, rids: ["q", "h", "f"])])
            return engine.makePublishOffer(iceRestart: false).sdp
        }
        let certificate = try DTLSCertificate.generate()
        let answer = try PublishNegotiation.answer(
            offerText: sdp,
            transport: NegotiationTransport(
                ice: ICECredentials(ufrag: "srvr", password: "serverpasswordserverpass"),
                fingerprint: certificate.fingerprint, candidates: [STUNAddress(ipv4: 127, 0, 0, 1, port: 7882)]),
            sessionID: "1", sessionVersion: 1)
        try answer.requireCodecs(forMIDs: ["0"])
        let parsed = try ServerDescription(parsing: answer.text)
        let video = try #require(parsed.media.first { $0.mid == "0" })
        // Whatever it accepted, the engine sends what the answer allows.
        let layers = MediaEngine.acceptedLayers(offered: ["q", "h", "f"], answer: video.description.simulcast)
        #expect(video.description.simulcast == nil ? layers == ["f"] : !layers.isEmpty)
    }

    @Test func answerPicksTheLayersSent() throws {
        let offered = ["q", "h", "f"]
        #expect(MediaEngine.acceptedLayers(offered: offered, answer: nil) == ["f"])
        #expect(MediaEngine.acceptedLayers(offered: offered, answer: SDPSimulcast(value: "recv q;h;f")) == offered)
        #expect(MediaEngine.acceptedLayers(offered: offered, answer: SDPSimulcast(value: "recv f;q")) == ["q", "f"])
        #expect(MediaEngine.acceptedLayers(offered: offered, answer: SDPSimulcast(value: "recv q;~h;f")) == ["q", "f"])
        #expect(MediaEngine.acceptedLayers(offered: offered, answer: SDPSimulcast(value: "recv x")) == [])
    }

    /// Each layer's packets carry MID and their own RID (RFC 8852); a
    /// one-layer track's carry no RID.
    @Test(arguments: ["q", "h", "f", nil] as [String?])
    func packetsCarryTheirLayersRID(_ rid: String?) throws {
        let ids = NegotiatedHeaderExtensions(mid: 4, absSendTime: 2, transportCC: 3, rid: 10)
        let header = RTPHeader(
            marker: true, payloadType: 96, sequenceNumber: 7, timestamp: 90_000, ssrc: SSRC(1234),
            extensions: MediaEngine.headerExtensions(
                ids, mid: "12", rid: rid, audioLevel: nil, absSendTime: [1, 2, 3], transportSequence: 9))
        let payload = [UInt8](repeating: 0xAB, count: MediaEngine.maximumRTPPacketSize - MediaEngine.maximumHeaderSize)
        var buffer = [UInt8](repeating: 0, count: 2048)
        let length = try buffer.withUnsafeMutableBytes { out in
            try payload.withUnsafeBytes { try RTPHeader.writePacket(header, payload: $0, to: out) }
        }
        #expect(length <= MediaEngine.maximumRTPPacketSize)
        try buffer.withUnsafeBytes { bytes in
            let view = try RTPPacketView(validating: UnsafeRawBufferPointer(rebasing: bytes[0..<length]))
            #expect(view.extensionValue(id: 4).map { Array($0) } == Array("12".utf8))
            #expect(view.extensionValue(id: 10).map { Array($0) } == rid.map { Array($0.utf8) })
            #expect(view.extensionValue(id: 3).map { Array($0) } == [0, 9])
        }
        // Not negotiated: not sent, whatever the layer.
        let plain = MediaEngine.headerExtensions(
            NegotiatedHeaderExtensions(mid: 4), mid: "1", rid: rid, audioLevel: nil, absSendTime: [], transportSequence: 0)
        #expect(plain.map(\.id) == [4])
    }

    /// Three layers: three SSRCs (none the subscriber's or another
    /// track's), one m-line, one track in the statistics.
    @Test func eachLayerHasItsOwnSSRC() async throws {
        let (camera, screen, statistics) = try await withEngine { engine in
            engine.setLocalTracks([
                LocalMediaTrack(name: "camera", kind: .video, enabled: true, rids: ["q", "h", "f"]),
                LocalMediaTrack(name: "screen", kind: .video, enabled: true),
            ])
            return (engine.ssrcs(trackName: "camera"), engine.ssrcs(trackName: "screen"), engine.statistics())
        }
        #expect(camera.count == 3 && Set(camera).count == 3)
        #expect(screen.count == 1 && !camera.contains(screen[0]))
        #expect(statistics.localTracks.map(\.name) == ["camera", "screen"])
        #expect(statistics.localTracks.first?.ssrc == camera.first?.rawValue)
    }
}
