import Packets
import SDP
import Testing
@testable import WebRTC

/// Answers to the real publish offers of Chromium, aiortc, Firefox and
/// webrtcbin, field by field.
@Suite struct PublishNegotiationTests {
    let transport = NegotiationFixture.transport

    @Test(arguments: NegotiationFixture.offers)
    func answerParsesAndRoundTrips(_ fixture: NegotiationFixture) throws {
        let answer = try fixture.answer()
        let reparsed = try SessionDescription(parsing: answer.text)
        #expect(reparsed == answer.sdp)
        #expect(reparsed.text == answer.text)
        #expect(reparsed.isICELite)
        #expect(reparsed.origin.sessionID == "4242")
        #expect(reparsed.origin.sessionVersion == 1)
        // Same m-lines as the offer, in order.
        let offer = try fixture.parsed()
        #expect(reparsed.media.map(\.mid) == offer.media.map(\.mid))
        #expect(reparsed.media.map(\.kind) == offer.media.map(\.kind))
        #expect(reparsed.bundleGroups == [SDPGroup.bundle(answer.bundleMIDs)])
        for media in reparsed.media where !media.isRejected {
            #expect(media.port == 7882)
            #expect(media.connection == SDPConnection(address: "192.0.2.10"))
            #expect(media.iceUfrag == "srvUfrag")
            #expect(media.icePwd == "serverPassword0123456789")
            #expect(media.fingerprint == SDPFingerprint(hashFunction: "sha-256", value: transport.fingerprint))
            #expect(media.setup == .passive)
            #expect(media.hasRTCPMux)
            #expect(media.direction == .recvonly)
            #expect(media.candidates.map(\.value) == [
                "1 1 udp 2130706431 192.0.2.10 7882 typ host",
                "2 1 udp 2130706175 2001:db8::1 7882 typ host",
                // RFC 6544 passive TCP: type preference 90 < UDP's 126.
                "3 1 tcp 1520435199 192.0.2.10 7882 typ host tcptype passive",
                "4 1 tcp 1520434943 2001:db8::1 7882 typ host tcptype passive",
            ])
        }
        #expect(answer.dtlsRole == .server)
        #expect(!answer.iceRestart)
    }

    @Test func chromium() throws {
        let answer = try NegotiationFixture.chromiumOffer.answer()
        let sdp = answer.sdp
        #expect(sdp.attributes == [.iceLite, .group(.bundle(["0", "1"])), .extmapAllowMixed])
        #expect(sdp.media[0].mediaLine == "audio 7882 UDP/TLS/RTP/SAVPF 111")
        #expect(sdp.media[1].mediaLine == "video 7882 UDP/TLS/RTP/SAVPF 96 97")
        #expect(Array(sdp.media[0].lines.dropFirst(9)) == [
            "mid:0",
            "extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
            "extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
            "extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
            "extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
            "recvonly",
            "rtcp-mux",
            "rtpmap:111 opus/48000/2",
            "rtcp-fb:111 transport-cc",
            "fmtp:111 minptime=10;useinbandfec=1",
        ])
        #expect(Array(sdp.media[1].lines.dropFirst(9)) == [
            "mid:1",
            "extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
            "extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
            "extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
            "recvonly",
            "rtcp-mux",
            "rtpmap:96 VP8/90000",
            "rtcp-fb:96 goog-remb",
            "rtcp-fb:96 transport-cc",
            "rtcp-fb:96 ccm fir",
            "rtcp-fb:96 nack",
            "rtcp-fb:96 nack pli",
            "rtpmap:97 rtx/90000",
            "fmtp:97 apt=96",
        ])

        let audio = try #require(answer.media(withMID: "0"))
        #expect(audio.isAccepted && audio.remoteSends)
        #expect(audio.codec == NegotiatedCodec(name: .opus, payloadType: 111))
        #expect(audio.remoteSSRCs == NegotiatedSSRCs(primary: SSRC(1016036625), cname: "lzh9ppUL14GTrV4T", all: [SSRC(1016036625)]))
        #expect(audio.headerExtensions == NegotiatedHeaderExtensions(mid: 4, audioLevel: 1, absSendTime: 2, transportCC: 3))
        #expect(audio.feedback == [.transportCC])
        let video = try #require(answer.media(withMID: "1"))
        #expect(video.codec == NegotiatedCodec(name: .vp8, payloadType: 96, rtxPayloadType: 97))
        #expect(video.remoteSSRCs.primary == SSRC(894581214))
        #expect(video.remoteSSRCs.rtx == SSRC(625799870))
        #expect(video.headerExtensions == NegotiatedHeaderExtensions(mid: 4, absSendTime: 2, transportCC: 3))
        #expect(video.feedback == .video)
        #expect(video.remoteMSID?.trackID == "f20f3422-3f47-43d2-87d4-e22ee52bbf65")
        #expect(answer.remote == RemoteTransportParameters(
            ice: ICECredentials(ufrag: "grS4", password: "z/tiB84BX8WIpHQ/SiI7Y4WM"), fingerprintAlgorithm: "sha-256",
            fingerprint: "0A:5D:BB:E3:5D:0B:D4:CF:00:58:C8:2A:7C:FA:3E:18:97:A0:18:38:96:C5:44:4C:9E:EC:39:51:8F:E9:DB:38"))
        #expect(answer.sendingMIDs == ["0", "1"])
        try answer.requireCodecs(forMIDs: ["0", "1"])
    }

    @Test func aiortc() throws {
        let answer = try NegotiationFixture.aiortcOffer.answer()
        // INTEROP.md: aiortc publishes Opus on 96 and VP8 on 97; the answer keeps them.
        #expect(answer.sdp.media[0].formats == ["96"])
        #expect(answer.sdp.media[1].formats == ["97", "98"])
        #expect(answer.sdp.media[0].rtpmap(for: 96)?.value == "96 opus/48000/2")
        #expect(answer.sdp.media[0].fmtp(for: 96)?.parameters == "minptime=10;useinbandfec=1")
        #expect(answer.sdp.media[1].fmtp(for: 98)?.parameters == "apt=97")
        // aiortc offers no transport-cc and no ccm fir: none in the answer.
        #expect(answer.sdp.media[1].rtcpFeedback(for: 97).map(\.value) == ["97 goog-remb", "97 nack", "97 nack pli"])
        #expect(answer.sdp.attributes == [.iceLite, .group(.bundle(["0", "1"]))])

        let audio = try #require(answer.media(withMID: "0"))
        #expect(audio.codec == NegotiatedCodec(name: .opus, payloadType: 96))
        #expect(audio.headerExtensions == NegotiatedHeaderExtensions(mid: 1, audioLevel: 2))
        #expect(audio.feedback == [])
        #expect(audio.remoteSSRCs.primary == SSRC(16807379))
        let video = try #require(answer.media(withMID: "1"))
        #expect(video.codec == NegotiatedCodec(name: .vp8, payloadType: 97, rtxPayloadType: 98))
        #expect(video.headerExtensions == NegotiatedHeaderExtensions(mid: 1, absSendTime: 3))
        #expect(video.feedback == [.nack, .pli, .remb])
        #expect(video.remoteSSRCs == NegotiatedSSRCs(
            primary: SSRC(1050465163), rtx: SSRC(2778497264), cname: "479b92bc-8a18-4310-bab4-5d7e78141eb2",
            all: [SSRC(1050465163), SSRC(2778497264)]))
        #expect(answer.remote.ice == ICECredentials(ufrag: "JrV8", password: "r2piD8XcRIi5KT6t5Gpfpc"))
        #expect(answer.remote.fingerprint.hasPrefix("14:F6:41"))
    }

    @Test func firefoxSessionLevelFingerprintAndBundleOnly() throws {
        let answer = try NegotiationFixture.firefoxOffer.answer()
        // The video m-line is port 0 + a=bundle-only: bundled, not rejected.
        #expect(answer.bundleMIDs == ["0", "1"])
        let video = try #require(answer.media(withMID: "1"))
        #expect(video.isAccepted)
        #expect(video.remoteSends)  // a=sendrecv at session level and on the m-line
        #expect(video.codec == NegotiatedCodec(name: .vp8, payloadType: 120, rtxPayloadType: 124))
        #expect(video.headerExtensions == NegotiatedHeaderExtensions(mid: 3, absSendTime: 4, transportCC: 7))
        #expect(video.feedback == .video)
        #expect(video.remoteSSRCs.primary == SSRC(1830283547))
        #expect(video.remoteSSRCs.rtx == SSRC(3105216874))
        #expect(answer.sdp.media[1].port == 7882)
        #expect(!answer.sdp.media[1].isBundleOnly)
        let audio = try #require(answer.media(withMID: "0"))
        #expect(audio.codec == NegotiatedCodec(name: .opus, payloadType: 109))
        #expect(audio.headerExtensions == NegotiatedHeaderExtensions(mid: 3, audioLevel: 1, transportCC: 7))
        #expect(audio.feedback == [.transportCC])
        // csrc-audio-level (2/recvonly) and playout-delay are not kept.
        #expect(answer.sdp.media[0].extmaps.map(\.id) == [1, 3, 7])
        #expect(answer.sdp.media[1].extmaps.map(\.id) == [3, 4, 7])
        // Firefox puts a=extmap-allow-mixed on every m-line: the answer does too.
        #expect(answer.sdp.media.allSatisfy { $0.attributes.contains(.extmapAllowMixed) })
        // The fingerprint sits at session level in the offer.
        #expect(answer.remote.fingerprint.hasPrefix("6B:8B:5D"))
        #expect(answer.remote.ice.ufrag == "8f1d2a4b")
    }

    @Test func webrtcbinBundleOnlyAndDataChannel() throws {
        let answer = try NegotiationFixture.webrtcbinOffer.answer()
        #expect(answer.bundleMIDs == ["video0", "audio1"])
        let video = try #require(answer.media(withMID: "video0"))
        #expect(video.codec == NegotiatedCodec(name: .vp8, payloadType: 96))  // no RTX offered
        #expect(video.feedback == [.nack, .pli, .fir])
        #expect(video.headerExtensions == NegotiatedHeaderExtensions())
        #expect(video.remoteSSRCs.primary == SSRC(3484078950))
        #expect(video.remoteDirection == .sendonly)
        let audio = try #require(answer.media(withMID: "audio1"))
        #expect(audio.isAccepted)  // port 0 + bundle-only
        #expect(audio.codec == NegotiatedCodec(name: .opus, payloadType: 97))  // OPUS, upper case
        #expect(answer.sdp.media[1].rtpmap(for: 97)?.encoding == "OPUS")
        let data = try #require(answer.media(withMID: "application2"))
        #expect(data.rejection == .unsupportedMedia)
        #expect(!data.remoteSends)
        #expect(answer.sdp.media[2].mediaLine == "application 0 UDP/DTLS/SCTP webrtc-datachannel")
        #expect(answer.sdp.media[2].lines == ["mid:application2"])
        #expect(answer.sendingMIDs == ["video0", "audio1"])
    }
}
