import Packets
import SDP
import Testing
import WebRTC

/// Reading clients' answers to the server's subscriber offer: hand-written
/// in the shapes Chromium 156 and aiortc 1.16 answer (see the captured
/// chromium-answer.sdp and aiortc-answer.sdp fixtures).
@Suite struct SubscriberAnswerTests {
    static let alice = "PA" + String(repeating: "a", count: 32)
    static let bob = "PA" + String(repeating: "b", count: 32)
    static let chromeFingerprint = "42:05:F7:CB:93:DB:DE:48:6B:E2:41:26:3D:A8:87:20:BF:A1:3E:6A:22:5E:E4:20:E5:BA:55:24:76:D1:C5:7D"

    /// Alice's camera with RTX, an inactive audio slot, Bob's mic.
    let offer: SubscriberOffer

    init() throws {
        offer = try #require(try SubscriberOffer(
            slots: [
                SubscriberOfferSlot(mid: "0", kind: .video, track: SubscriberOfferTrack(
                    participantSID: Self.alice, trackSID: "MT1", ssrc: SSRC(2000), rtxSSRC: SSRC(2001))),
                SubscriberOfferSlot(mid: "1", kind: .audio),
                SubscriberOfferSlot(mid: "2", kind: .audio, track: SubscriberOfferTrack(
                    participantSID: Self.bob, trackSID: "MT2", ssrc: SSRC(3000))),
            ],
            transport: NegotiationFixture.transport, sessionID: "77", sessionVersion: 1))
    }

    static func sdp(_ lines: [String]) -> String { lines.map { $0 + "\r\n" }.joined() }

    static func chromeTransport(setup: String = "active", ufrag: String = "cHr1") -> [String] {
        [
            "c=IN IP4 0.0.0.0", "a=rtcp:9 IN IP4 0.0.0.0", "a=ice-ufrag:\(ufrag)", "a=ice-pwd:chromePassword0123456789",
            "a=ice-options:trickle", "a=fingerprint:sha-256 \(chromeFingerprint)", "a=setup:\(setup)",
        ]
    }

    /// What Chromium answers: port 9 everywhere, candidates trickled
    /// separately, all the offered feedback and extensions.
    static func chromiumAnswer(setup: String = "active", ufrag: String = "cHr1", rejectLast: Bool = false) -> String {
        let t = chromeTransport(setup: setup, ufrag: ufrag)
        return sdp(
            ["v=0", "o=- 5555 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1" + (rejectLast ? "" : " 2"), "a=msid-semantic: WMS"]
                + ["m=video 9 UDP/TLS/RTP/SAVPF 96 97"] + t + [
                    "a=mid:0",
                    "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
                    "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
                    "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
                    "a=recvonly", "a=rtcp-mux", "a=rtcp-rsize",
                    "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 goog-remb", "a=rtcp-fb:96 transport-cc", "a=rtcp-fb:96 ccm fir",
                    "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli", "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96",
                ]
                + ["m=audio 9 UDP/TLS/RTP/SAVPF 111"] + t + [
                    "a=mid:1",
                    "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
                    "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
                    "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
                    "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
                    "a=inactive", "a=rtcp-mux", "a=rtcp-rsize",
                    "a=rtpmap:111 opus/48000/2", "a=rtcp-fb:111 transport-cc", "a=fmtp:111 minptime=10;useinbandfec=1",
                ]
                + (rejectLast
                    ? ["m=audio 0 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 0.0.0.0", "a=mid:2", "a=inactive"]
                    : ["m=audio 9 UDP/TLS/RTP/SAVPF 111"] + t + [
                        "a=mid:2",
                        "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
                        "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
                        "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
                        "a=recvonly", "a=rtcp-mux", "a=rtcp-rsize",
                        "a=rtpmap:111 opus/48000/2", "a=rtcp-fb:111 transport-cc", "a=fmtp:111 minptime=10;useinbandfec=1",
                    ]))
    }

    /// What aiortc answers: its port and candidate on every m-line, three
    /// fingerprints, `a=ssrc` for its own RTCP, no transport-cc and no FIR.
    static func aiortcAnswer() -> String {
        let t = [
            "c=IN IP4 127.0.0.1",
        ]
        let tail = [
            "a=candidate:16572de626da4e5384a0ce2d0d93678a 1 udp 2130706431 127.0.0.1 47762 typ host",
            "a=end-of-candidates", "a=ice-ufrag:Ky0i", "a=ice-pwd:EocUx5dIRL6wwxBTkMgbe1",
            "a=fingerprint:sha-256 C9:7F:6B:C6:E0:6A:79:18:58:C0:35:3D:E3:A9:31:6F:B5:F2:F2:FB:D1:67:18:3A:23:F5:4C:A4:B9:61:FF:9B",
            "a=fingerprint:sha-384 29:E4:EC:C9:D9:0A:DC:EF:EF:44:22:2F:C7:C6:E7:11:DA:64:4D:8E:09:CD:30:88:68:1A:4D:E9:59:74:CD:14:B3:BB:C4:71:C2:E9:68:BE:11:1D:08:7C:52:C5:FF:38",
            "a=setup:active",
        ]
        return sdp(
            ["v=0", "o=- 4004243105 4004243105 IN IP4 0.0.0.0", "s=-", "t=0 0", "a=group:BUNDLE 0 1 2", "a=msid-semantic:WMS *"]
                + ["m=video 47762 UDP/TLS/RTP/SAVPF 96 97"] + t + [
                    "a=recvonly",
                    "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
                    "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
                    "a=mid:0", "a=rtcp:9 IN IP4 0.0.0.0", "a=rtcp-mux",
                    "a=ssrc:1234 cname:edbf5156-261b-4b76-bb10-da8b83f03d0e",
                    "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli", "a=rtcp-fb:96 goog-remb",
                    "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96",
                ] + tail
                + ["m=audio 47762 UDP/TLS/RTP/SAVPF 111"] + t + [
                    "a=inactive",
                    "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
                    "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
                    "a=mid:1", "a=rtcp:9 IN IP4 0.0.0.0", "a=rtcp-mux",
                    "a=rtpmap:111 opus/48000/2",
                ] + tail
                + ["m=audio 47762 UDP/TLS/RTP/SAVPF 111"] + t + [
                    "a=recvonly",
                    "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
                    "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
                    "a=mid:2", "a=rtcp:9 IN IP4 0.0.0.0", "a=rtcp-mux",
                    "a=ssrc:5678 cname:edbf5156-261b-4b76-bb10-da8b83f03d0e",
                    "a=rtpmap:111 opus/48000/2",
                ] + tail)
    }

    @Test func chromium() throws {
        let answer = try offer.parseAnswer(Self.chromiumAnswer())
        #expect(answer.dtlsRole == .server)
        #expect(answer.remote == RemoteTransportParameters(
            ice: ICECredentials(ufrag: "cHr1", password: "chromePassword0123456789"), fingerprintAlgorithm: "sha-256",
            fingerprint: Self.chromeFingerprint))
        #expect(!answer.remoteICEChanged)
        let video = try #require(answer.media(withMID: "0"))
        #expect(video.isAccepted)
        #expect(video.codec == NegotiatedCodec(name: .vp8, payloadType: 96, rtxPayloadType: 97))
        #expect(video.feedback == .video)
        #expect(video.headerExtensions == NegotiatedHeaderExtensions(mid: 4, absSendTime: 2, transportCC: 3))
        #expect(video.remoteDirection == .recvonly)
        #expect(!video.remoteSends)
        let inactive = try #require(answer.media(withMID: "1"))
        #expect(inactive.isAccepted)
        #expect(inactive.remoteDirection == .inactive)
        let bob = try #require(answer.media(withMID: "2"))
        #expect(bob.codec == NegotiatedCodec(name: .opus, payloadType: 111))
        #expect(bob.feedback == [.transportCC])
        // Chromium dropped abs-send-time on this one: only what the answer lists counts.
        #expect(bob.headerExtensions == NegotiatedHeaderExtensions(mid: 4, audioLevel: 1, transportCC: 3))
    }

    @Test func aiortc() throws {
        let answer = try offer.parseAnswer(Self.aiortcAnswer())
        #expect(answer.dtlsRole == .server)
        #expect(answer.remote.ice == ICECredentials(ufrag: "Ky0i", password: "EocUx5dIRL6wwxBTkMgbe1"))
        #expect(answer.remote.fingerprint.hasPrefix("C9:7F:6B"))
        let video = try #require(answer.media(withMID: "0"))
        #expect(video.codec?.rtxPayloadType == 97)  // RTX accepted
        #expect(video.feedback == [.nack, .pli, .remb])  // no transport-cc, no FIR
        #expect(video.headerExtensions == NegotiatedHeaderExtensions(mid: 4, absSendTime: 2))
        #expect(video.remoteSSRCs.primary == SSRC(1234))
        let bob = try #require(answer.media(withMID: "2"))
        #expect(bob.feedback == [])
        #expect(bob.headerExtensions == NegotiatedHeaderExtensions(mid: 4, audioLevel: 1))
        #expect(bob.remoteSSRCs.primary == SSRC(5678))
    }

    @Test func rtxDeclined() throws {
        let text = Self.chromiumAnswer()
            .replacingOccurrences(of: "m=video 9 UDP/TLS/RTP/SAVPF 96 97", with: "m=video 9 UDP/TLS/RTP/SAVPF 96")
            .replacingOccurrences(of: "a=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\n", with: "")
        let answer = try offer.parseAnswer(text)
        #expect(answer.media(withMID: "0")?.codec == NegotiatedCodec(name: .vp8, payloadType: 96))
    }

    @Test func rejectedMLine() throws {
        let answer = try offer.parseAnswer(Self.chromiumAnswer(rejectLast: true))
        #expect(answer.media(withMID: "2")?.rejection == .answerRejected)
        #expect(answer.media(withMID: "0")?.isAccepted == true)
    }

    @Test func passiveMakesTheServerTheDTLSClient() throws {
        let answer = try offer.parseAnswer(Self.chromiumAnswer(setup: "passive"))
        #expect(answer.dtlsRole == .client)
    }

    @Test func iceChange() throws {
        let first = try offer.parseAnswer(Self.chromiumAnswer())
        let same = try offer.parseAnswer(Self.chromiumAnswer(), previous: first)
        #expect(!same.remoteICEChanged)
        let changed = try offer.parseAnswer(Self.chromiumAnswer(ufrag: "nEw2"), previous: first)
        #expect(changed.remoteICEChanged)
        #expect(changed.remote.ice.ufrag == "nEw2")
    }

    @Test func unusableAnswers() throws {
        let good = Self.chromiumAnswer()
        let bad: [String] = [
            good.replacingOccurrences(of: "a=mid:2", with: "a=mid:9"),  // mids not matching
            good.replacingOccurrences(of: "a=mid:2", with: "a=mid:1"),  // duplicate mid
            good.replacingOccurrences(of: "a=fingerprint:sha-256 \(Self.chromeFingerprint)\r\n", with: ""),
            good.replacingOccurrences(of: "a=setup:active", with: "a=setup:actpass"),
            good.replacingOccurrences(of: "a=rtcp-mux\r\n", with: ""),
            good.replacingOccurrences(of: "a=group:BUNDLE 0 1 2\r\n", with: ""),
            good.replacingOccurrences(of: "a=extmap:4 ", with: "a=extmap:15 "),
            String(good[..<good.range(of: "m=audio")!.lowerBound]),  // one m-line instead of three
            "v=0\r\n",
            good + String(repeating: "a=x:" + String(repeating: "y", count: 1020) + "\r\n", count: 300),
        ]
        for text in bad {
            let error = negotiationError { _ = try offer.parseAnswer(text) }
            #expect(error?.code == 53403, "\(text.prefix(300))")
        }
    }
}
