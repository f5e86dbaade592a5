import SDP
import Testing

/// The hand-written fixtures: Firefox's session-level attributes and
/// bundle-only sections, a webrtcbin-style offer, RFC 8866's example.
@Suite struct HandMadeFixtureTests {
    @Test func firefoxSessionLevelAttributesApplyToEverySection() throws {
        let offer = try Fixture.firefoxOffer.parsed()
        #expect(offer.origin.username == "mozilla...THIS_IS_SDPARTA-153.0")
        #expect(offer.direction == .sendrecv)
        for media in offer.media {
            #expect(media.fingerprint == nil, "Firefox's fingerprint is session-level")
            #expect(media.fingerprint(in: offer)?.hashFunction == "sha-256")
            #expect(media.iceOptions(in: offer) == ["trickle"])
            #expect(media.direction(in: offer) == .sendrecv)
            #expect(media.setup(in: offer) == .actpass)
            #expect(media.attributes.contains(.extmapAllowMixed))
        }
    }

    @Test func firefoxBundleOnlyVideoIsNotRejected() throws {
        let offer = try Fixture.firefoxOffer.parsed()
        let video = offer.media[1]
        #expect(video.port == 0)
        #expect(video.isBundleOnly)
        #expect(!video.isRejected)
        #expect(offer.bundleGroups.first?.mids.contains(video.mid ?? "") == true)
    }

    @Test func firefoxCodecsAndExtensions() throws {
        let offer = try Fixture.firefoxOffer.parsed()
        let audio = offer.media[0]
        let video = offer.media[1]
        #expect(audio.rtpmap(for: 109)?.isEncoding("opus") == true)
        #expect(audio.rtpmap(for: 9) == SDPRTPMap(payloadType: 9, encoding: "G722", clockRate: 8000, channels: 1))
        #expect(audio.fmtp(for: 101)?.pairs == [SDPFormatParameter(key: "0-15", value: nil)])
        #expect(audio.extmaps[1] == SDPExtmap(id: 2, direction: .recvonly, uri: "urn:ietf:params:rtp-hdrext:csrc-audio-level"))
        #expect(audio.extmapID(for: SDPExtmap.transportCCURI) == 7)
        #expect(video.rtpmap(for: 120)?.encoding == "VP8")
        #expect(video.fmtp(for: 124)?["apt"] == "120")
        #expect(video.rtcpFeedback(for: 120).count == 5)
        #expect(video.ssrcGroups == [SDPSSRCGroup(semantics: "FID", ssrcs: [1_830_283_547, 3_105_216_874])])
        let candidates = audio.candidates
        #expect(candidates.map(\.transport) == ["UDP", "UDP", "TCP", "UDP"])
        #expect(candidates[1].address == "::1")
        #expect(candidates[3].component == 2)
        #expect(candidates[2].extensionValue("tcptype") == "active")
    }

    @Test func webrtcbinBundleOnlySections() throws {
        let offer = try Fixture.webrtcbinOffer.parsed()
        #expect(offer.bundleGroups.first?.mids == ["video0", "audio1", "application2"])
        #expect(offer.media.map(\.kind) == [.video, .audio, .application])
        #expect(offer.media.map(\.isRejected) == [false, false, false])
        #expect(offer.media.map(\.isBundleOnly) == [false, true, true])
        let video = offer.media[0]
        #expect(video.bandwidths == [SDPBandwidth(type: "AS", value: 2500)])
        #expect(video.direction == .sendonly)
        let srflx = try #require(video.candidates.last)
        #expect(srflx.type == .serverReflexive)
        #expect(srflx.relatedAddress == "127.0.0.1")
        #expect(srflx.relatedPort == 41542)
        #expect(offer.media[1].rtpmap(for: 97)?.isEncoding("opus") == true)
        let data = offer.media[2]
        #expect(data.proto == "UDP/DTLS/SCTP")
        #expect(data.formats == ["webrtc-datachannel"])
        #expect(data.sctpPort == 5000)
        #expect(data.attributes.contains(.maxMessageSize(262_144)))
        #expect(video.attributeValue("framerate") == "30")
    }

    @Test func rfc8866ExampleKeepsEveryLineType() throws {
        let example = try Fixture.rfc8866Example.parsed()
        #expect(example.origin == SDPOrigin(username: "jdoe", sessionID: "3724394400", sessionVersion: 3_724_394_405, address: "198.51.100.1"))
        #expect(example.sessionName == "Call to John Smith")
        #expect(example.information == "SDP Offer #1")
        #expect(example.uri == "http://www.jdoe.example.com/home.html")
        #expect(example.emails == ["Jane Doe <jane@jdoe.example.com>"])
        #expect(example.phones == ["+1 617 555-6011"])
        #expect(example.connection == SDPConnection(address: "198.51.100.1"))
        #expect(example.media.count == 3)
        #expect(example.media[2].connection == SDPConnection(addressType: "IP6", address: "2001:db8::2"))
        #expect(example.media[2].rtpmap(for: 99)?.encoding == "h263-1998")
        #expect(example.media[0].attributes.isEmpty)
    }
}
