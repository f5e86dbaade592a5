import Packets
import SDP
import Testing
import WebRTC

/// The server's offers on the subscriber connection (PROTOCOL.md 3.4, 5).
@Suite struct SubscriberOfferTests {
    let transport = NegotiationFixture.transport
    static let alice = "PA" + String(repeating: "a", count: 32)
    static let bob = "PA" + String(repeating: "b", count: 32)
    static let mic = "MT" + String(repeating: "1", count: 32)
    static let camera = "MT" + String(repeating: "2", count: 32)
    static let bobCamera = "MT" + String(repeating: "3", count: 32)

    func offer(_ slots: [SubscriberOfferSlot], transport: NegotiationTransport? = nil, version: UInt64 = 1) throws -> SubscriberOffer {
        try #require(try SubscriberOffer(slots: slots, transport: transport ?? self.transport, sessionID: "77", sessionVersion: version))
    }

    @Test func zeroSlotsIsNoOffer() throws {
        #expect(try SubscriberOffer(slots: [], transport: transport, sessionID: "77", sessionVersion: 1) == nil)
    }

    @Test func oneAudioSlot() throws {
        let offer = try offer([
            SubscriberOfferSlot(mid: "0", kind: .audio, track: SubscriberOfferTrack(participantSID: Self.alice, trackSID: Self.mic, ssrc: SSRC(1000))),
        ])
        let sdp = try SessionDescription(parsing: offer.text)
        #expect(sdp == offer.sdp)
        #expect(sdp.text == offer.text)
        #expect(sdp.attributes.map(\.text) == ["ice-lite", "group:BUNDLE 0", "msid-semantic:WMS *"])
        let audio = sdp.media[0]
        #expect(audio.mediaLine == "audio 7882 UDP/TLS/RTP/SAVPF 111")
        #expect(audio.lines == [
            "candidate:1 1 udp 2130706431 192.0.2.10 7882 typ host",
            "candidate:2 1 udp 2130706175 2001:db8::1 7882 typ host",
            "candidate:3 1 tcp 1520435199 192.0.2.10 7882 typ host tcptype passive",
            "candidate:4 1 tcp 1520434943 2001:db8::1 7882 typ host tcptype passive",
            "end-of-candidates",
            "ice-ufrag:srvUfrag",
            "ice-pwd:serverPassword0123456789",
            "fingerprint:sha-256 \(transport.fingerprint)",
            "setup:actpass",
            "mid:0",
            "extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
            "extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
            "extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
            "extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
            "sendonly",
            "msid:\(Self.alice) \(Self.mic)",
            "rtcp-mux",
            "rtpmap:111 opus/48000/2",
            "rtcp-fb:111 transport-cc",
            "fmtp:111 minptime=10;useinbandfec=1",
            "ssrc:1000 cname:\(Self.alice)",
            "ssrc:1000 msid:\(Self.alice) \(Self.mic)",
        ])
    }

    /// Three slots: Alice's camera with RTX, an inactive audio slot left by
    /// a removed track, Bob's camera without RTX.
    func threeSlots() -> [SubscriberOfferSlot] {
        [
            SubscriberOfferSlot(mid: "0", kind: .video, track: SubscriberOfferTrack(
                participantSID: Self.alice, trackSID: Self.camera, ssrc: SSRC(2000), rtxSSRC: SSRC(2001))),
            SubscriberOfferSlot(mid: "1", kind: .audio, track: nil),
            SubscriberOfferSlot(mid: "2", kind: .video, track: SubscriberOfferTrack(
                participantSID: Self.bob, trackSID: Self.bobCamera, ssrc: SSRC(3000))),
        ]
    }

    @Test func threeSlotsWithAnInactiveOne() throws {
        let offer = try offer(threeSlots())
        let sdp = try SessionDescription(parsing: offer.text)
        #expect(sdp == offer.sdp)
        #expect(sdp.bundleGroups == [.bundle(["0", "1", "2"])])
        // Every m-line carries the same transport and is bundled (none rejected).
        #expect(sdp.media.allSatisfy { $0.port == 7882 && $0.setup == .actpass && $0.hasRTCPMux && $0.iceUfrag == "srvUfrag" })

        let video = sdp.media[0]
        #expect(video.formats == ["96", "97"])
        #expect(video.direction == .sendonly)
        #expect(video.rtcpFeedback(for: 96).map(\.value) == ["96 goog-remb", "96 transport-cc", "96 ccm fir", "96 nack", "96 nack pli"])
        #expect(video.fmtp(for: 97)?.parameters == "apt=96")
        #expect(video.ssrcGroups == [SDPSSRCGroup(semantics: "FID", ssrcs: [2000, 2001])])
        #expect(video.ssrcs.map(\.text) == [
            "2000 cname:\(Self.alice)", "2000 msid:\(Self.alice) \(Self.camera)",
            "2001 cname:\(Self.alice)", "2001 msid:\(Self.alice) \(Self.camera)",
        ])
        #expect(video.extmaps.map(\.id) == [2, 3, 4])  // no audio level on video

        let inactive = sdp.media[1]
        #expect(inactive.kind == .audio)
        #expect(inactive.direction == .inactive)
        #expect(inactive.msid == nil)
        #expect(inactive.ssrcs.isEmpty)
        #expect(inactive.formats == ["111"])

        let bob = sdp.media[2]
        #expect(bob.formats == ["96"])  // no RTX SSRC: no RTX offered
        #expect(bob.ssrcGroups.isEmpty)
        #expect(bob.ssrcs.map(\.ssrc) == [3000, 3000])
        #expect(bob.msid == SDPMediaStreamID(streamID: Self.bob, trackID: Self.bobCamera))
    }

    @Test func reusedSlotGetsTheNewTrack() throws {
        var slots = threeSlots()
        let before = try offer(slots)
        // The inactive audio slot is reused by Bob's mic with a new SSRC.
        slots[1].track = SubscriberOfferTrack(participantSID: Self.bob, trackSID: Self.mic, ssrc: SSRC(4000))
        let after = try offer(slots, version: 2)
        #expect(after.sdp.media.map(\.mid) == before.sdp.media.map(\.mid))
        #expect(after.sdp.media[1].direction == .sendonly)
        #expect(after.sdp.media[1].ssrcs.first?.ssrc == 4000)
        #expect(after.sdp.origin.sessionVersion == 2)
    }

    @Test func iceRestartIsANewCredentialOnly() throws {
        let before = try offer(threeSlots())
        var restarted = transport
        restarted.ice = ICECredentials(ufrag: "newUfrag", password: "aBrandNewPassword1234567")
        let after = try offer(threeSlots(), transport: restarted)
        #expect(after.sdp.media.allSatisfy { $0.iceUfrag == "newUfrag" && $0.icePwd == "aBrandNewPassword1234567" })
        // Nothing else differs.
        let strip: (String) -> [Substring] = { $0.split(separator: "\r\n").filter { !$0.hasPrefix("a=ice-") } }
        #expect(strip(before.text) == strip(after.text))
        #expect(before.text != after.text)
    }

    @Test func badSlotsAreServerErrors() throws {
        let track = SubscriberOfferTrack(participantSID: Self.alice, trackSID: Self.mic, ssrc: SSRC(1))
        for slots in [
            [SubscriberOfferSlot(mid: "0", kind: .audio, track: track), SubscriberOfferSlot(mid: "0", kind: .video)],
            [SubscriberOfferSlot(mid: "", kind: .audio)],
            [SubscriberOfferSlot(mid: "a b", kind: .audio)],
            [SubscriberOfferSlot(mid: "0", kind: .application)],
        ] {
            let error = negotiationError { _ = try SubscriberOffer(slots: slots, transport: transport, sessionID: "1", sessionVersion: 1) }
            #expect(error?.code == 53401)
        }
    }
}
