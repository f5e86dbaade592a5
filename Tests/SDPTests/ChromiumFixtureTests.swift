import SDP
import Testing

/// Typed fields of the descriptions captured from headless Chromium 156.
@Suite struct ChromiumFixtureTests {
    @Test func offerBundlesAudioAndVideo() throws {
        let offer = try Fixture.chromiumOffer.parsed()
        #expect(offer.version == 0)
        #expect(offer.origin.username == "-")
        #expect(offer.origin.sessionVersion == 2)
        #expect(offer.sessionName == "-")
        #expect(offer.timings == [SDPTiming(start: 0, stop: 0)])
        #expect(offer.media.map(\.kind) == [.audio, .video])
        #expect(offer.media.map(\.mid) == ["0", "1"])
        #expect(offer.bundleGroups == [SDPGroup.bundle(["0", "1"])])
        #expect(offer.attributes.contains(.extmapAllowMixed))
        // Chromium's spelling keeps the space after the colon.
        let semantic = try #require(offer.msidSemantic)
        #expect(semantic.spaceAfterColon)
        #expect(semantic.semantic == "WMS")
        #expect(semantic.identifiers.count == 1)
        #expect(offer.attributes.contains { $0.text.hasPrefix("msid-semantic: WMS ") })
    }

    @Test func offerAudioIsOpusOn111() throws {
        let offer = try Fixture.chromiumOffer.parsed()
        let audio = offer.media[0]
        #expect(audio.proto == "UDP/TLS/RTP/SAVPF")
        #expect(audio.formats == ["111", "63", "9", "0", "8", "13", "110", "126"])
        #expect(audio.rtpmap(for: 111) == SDPRTPMap(payloadType: 111, encoding: "opus", clockRate: 48000, channels: 2))
        let fmtp = try #require(audio.fmtp(for: 111))
        #expect(fmtp.parameters == "minptime=10;useinbandfec=1")
        #expect(fmtp.pairs == [SDPFormatParameter(key: "minptime", value: "10"), SDPFormatParameter(key: "useinbandfec", value: "1")])
        #expect(fmtp["useinbandfec"] == "1")
        #expect(audio.rtcpFeedback(for: 111) == [SDPRTCPFeedback(payloadType: 111, type: "transport-cc")])
        #expect(audio.fmtp(for: 63)?.pairs == [SDPFormatParameter(key: "111/111", value: nil)])
        #expect(audio.extmaps.map(\.id) == [1, 2, 3, 4])
        #expect(audio.extmapID(for: SDPExtmap.audioLevelURI) == 1)
        #expect(audio.extmapID(for: SDPExtmap.absSendTimeURI) == 2)
        #expect(audio.extmapID(for: SDPExtmap.transportCCURI) == 3)
        #expect(audio.extmapID(for: SDPExtmap.midURI) == 4)
        #expect(audio.direction == .sendrecv)
        #expect(audio.hasRTCPMux)
        #expect(audio.attributes.contains(.rtcpRsize))
        #expect(audio.attributes.contains(.rtcp("9 IN IP4 0.0.0.0")))
        #expect(audio.attributeValue("rtcp-xr") == "rcvr-rtt=all")
        #expect(audio.ssrcs.count == 2)
        #expect(audio.ssrcs.map(\.attribute) == ["cname", "msid"])
        let msid = try #require(audio.msid)
        #expect(audio.ssrcs[1].value == "\(msid.streamID) \(msid.trackID ?? "")")
    }

    @Test func offerVideoIsVP8On96WithRTX97() throws {
        let offer = try Fixture.chromiumOffer.parsed()
        let video = offer.media[1]
        #expect(video.formats.prefix(2) == ["96", "97"])
        #expect(video.rtpmap(for: 96) == SDPRTPMap(payloadType: 96, encoding: "VP8", clockRate: 90000))
        #expect(video.rtpmap(for: 97)?.encoding == "rtx")
        #expect(video.fmtp(for: 97)?["apt"] == "96")
        #expect(video.rtcpFeedback(for: 96).map(\.value) == ["96 goog-remb", "96 transport-cc", "96 ccm fir", "96 nack", "96 nack pli"])
        #expect(video.extmapID(for: SDPExtmap.transportCCURI) == 3)
        #expect(video.extmapID(for: SDPExtmap.ridURI) == 10)
        #expect(video.extmapID(for: SDPExtmap.repairedRIDURI) == 11)
        let fid = try #require(video.ssrcGroups.first)
        #expect(fid.semantics == "FID")
        #expect(fid.ssrcs.count == 2)
        #expect(Set(video.ssrcs.map(\.ssrc)) == Set(fid.ssrcs))
        #expect(video.rtpmaps.filter { $0.isEncoding("vp9") }.count == 2)
        #expect(video.fmtp(for: 45)?.pairs.map(\.key) == ["level-idx", "profile", "tier"])
    }

    @Test func offerTransportAttributes() throws {
        let offer = try Fixture.chromiumOffer.parsed()
        for media in offer.media {
            let ufrag = try #require(media.iceUfrag(in: offer))
            #expect(ufrag.count >= 4)
            #expect((media.icePwd(in: offer)?.count ?? 0) >= 22)
            let fingerprint = try #require(media.fingerprint(in: offer))
            #expect(fingerprint.hashFunction == "sha-256")
            #expect(fingerprint.digest?.count == 32)
            #expect(media.setup(in: offer) == .actpass)
            #expect(media.iceOptions(in: offer) == ["trickle"])
            #expect(!media.isRejected)
            #expect(!media.isBundleOnly)
        }
        // Only the first m-line carries candidates under max-bundle.
        let candidates = offer.media[0].candidates
        #expect(candidates.count >= 1)
        for candidate in candidates {
            #expect(candidate.type == .host)
            #expect(candidate.component == 1)
            #expect(candidate.address == "127.0.0.1")
            #expect(candidate.extensionValue("generation") == "0")
            #expect(candidate.extensionValue("network-cost") == "50")
        }
        let udp = try #require(candidates.first { $0.isUDP })
        #expect(udp.port == offer.media[0].port)
        #expect(udp.extensions.map(\.name) == ["generation", "network-id", "network-cost"])
        if let tcp = candidates.first(where: { !$0.isUDP }) {
            #expect(tcp.extensionValue("tcptype") == "active")
            #expect(tcp.port == 9)
        }
        #expect(offer.media[0].connection == SDPConnection(address: "127.0.0.1"))
    }

    @Test func answerToAiortcKeepsAiortcPayloadTypes() throws {
        let answer = try Fixture.chromiumAnswer.parsed()
        let offer = try Fixture.aiortcOffer.parsed()
        #expect(answer.bundleGroups.first?.mids == ["0", "1"])
        #expect(answer.media.map(\.mid) == offer.media.map(\.mid))
        let audio = answer.media[0]
        #expect(audio.rtpmap(for: 96)?.isEncoding("opus") == true)
        #expect(audio.fmtp(for: 96)?.parameters == "minptime=10;useinbandfec=1")
        let video = answer.media[1]
        #expect(video.rtpmap(for: 97)?.encoding == "VP8")
        #expect(video.fmtp(for: 98)?["apt"] == "97")
        for media in answer.media {
            #expect(media.setup(in: answer) == .active)
            #expect(media.fingerprint(in: answer)?.hashFunction == "sha-256")
        }
        #expect(answer.msidSemantic?.spaceAfterColon == true)
    }
}
