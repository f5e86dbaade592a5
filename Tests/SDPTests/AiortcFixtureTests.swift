import SDP
import Testing

/// Typed fields of the descriptions captured from aiortc 1.16.
@Suite struct AiortcFixtureTests {
    @Test func offerPayloadTypes() throws {
        // INTEROP.md: aiortc offers Opus on 96 and VP8 on 97.
        let offer = try Fixture.aiortcOffer.parsed()
        #expect(offer.bundleGroups == [SDPGroup.bundle(["0", "1"])])
        #expect(offer.msidSemantic == SDPMSIDSemantic(semantic: "WMS", identifiers: ["*"], spaceAfterColon: false))
        let audio = offer.media[0]
        let video = offer.media[1]
        #expect(audio.formats == ["96", "9", "0", "8"])
        #expect(audio.rtpmap(for: 96) == SDPRTPMap(payloadType: 96, encoding: "opus", clockRate: 48000, channels: 2))
        #expect(audio.fmtp(for: 96) == nil)
        #expect(video.formats == ["97", "98", "99", "100", "101", "102"])
        #expect(video.rtpmap(for: 97) == SDPRTPMap(payloadType: 97, encoding: "VP8", clockRate: 90000))
        #expect(video.fmtp(for: 98)?["apt"] == "97")
        #expect(video.rtcpFeedback(for: 97).map(\.value) == ["97 nack", "97 nack pli", "97 goog-remb"])
        // aiortc offers no transport-cc header extension.
        #expect(video.extmapID(for: SDPExtmap.transportCCURI) == nil)
        #expect(video.extmapID(for: SDPExtmap.absSendTimeURI) == 3)
        #expect(audio.extmapID(for: SDPExtmap.midURI) == 1)
    }

    @Test func offerTransport() throws {
        let offer = try Fixture.aiortcOffer.parsed()
        // max-bundle: both sections share one port, each repeats its candidates.
        #expect(offer.media[0].port == offer.media[1].port)
        for media in offer.media {
            #expect(media.direction == .sendrecv)
            #expect(media.setup == .actpass)
            #expect(media.fingerprints(in: offer).map(\.hashFunction) == ["sha-256", "sha-384", "sha-512"])
            #expect(media.fingerprints(in: offer).map { $0.digest?.count } == [32, 48, 64])
            #expect(media.iceUfrag != nil)
            #expect(media.icePwd != nil)
            #expect(media.attributes.contains(.endOfCandidates))
            let candidate = try #require(media.candidates.first)
            #expect(candidate.type == .host)
            #expect(candidate.address == "127.0.0.1")
            #expect(candidate.transport == "udp")
            #expect(candidate.priority == 2_130_706_431)
            #expect(candidate.port == media.port)
            #expect(candidate.extensions.isEmpty)
            // aiortc routes by SSRC: it declares every SSRC with a cname.
            #expect(!media.ssrcs.isEmpty)
            #expect(media.ssrcs.allSatisfy { $0.attribute == "cname" })
        }
        #expect(offer.media[1].ssrcGroups.first?.semantics == "FID")
    }

    @Test func answerToChromium() throws {
        let answer = try Fixture.aiortcAnswer.parsed()
        let audio = answer.media[0]
        let video = answer.media[1]
        #expect(audio.rtpmap(for: 111)?.isEncoding("opus") == true)
        #expect(video.rtpmap(for: 96)?.encoding == "VP8")
        #expect(video.fmtp(for: 97)?["apt"] == "96")
        #expect(answer.media.allSatisfy { $0.setup == .active })
        #expect(audio.extmapID(for: SDPExtmap.midURI) == 4)
    }
}
