import SDP
import Testing

/// The simulcast publish offers of Chromium 156 and Firefox ESR 153
/// (Fixtures/README.md), field by field: what the negotiation reads of them.
@Suite struct SimulcastFixtureTests {
    @Test(arguments: [Fixture.chromiumSimulcastOffer, .firefoxSimulcastOffer])
    func ridAndSimulcastLinesAreTyped(_ fixture: Fixture) throws {
        let offer = try fixture.parsed()
        #expect(offer.media.count == 1)
        let video = try #require(offer.media.first)
        #expect(video.kind == .video)
        #expect(video.direction(in: offer) == .sendonly)
        #expect(video.rids == [
            SDPRID(id: "q", direction: .send), SDPRID(id: "h", direction: .send), SDPRID(id: "f", direction: .send),
        ])
        let simulcast = try #require(video.simulcast)
        #expect(simulcast.value == "send q;h;f")
        #expect(simulcast.send == [[.init(rid: "q")], [.init(rid: "h")], [.init(rid: "f")]])
        #expect(simulcast.recv.isEmpty)
    }

    @Test func chromiumDeclaresNoSSRCs() throws {
        let video = try #require(try Fixture.chromiumSimulcastOffer.parsed().media.first)
        #expect(video.ssrcs.isEmpty)
        #expect(video.ssrcGroups.isEmpty)
        #expect(video.extmapID(for: SDPExtmap.midURI) == 9)
        #expect(video.extmapID(for: SDPExtmap.ridURI) == 10)
        #expect(video.extmapID(for: SDPExtmap.repairedRIDURI) == 11)
    }

    @Test func firefoxDeclaresAnSSRCPairPerLayer() throws {
        let video = try #require(try Fixture.firefoxSimulcastOffer.parsed().media.first)
        #expect(video.ssrcGroups.filter { $0.semantics == "FID" }.count == 3)
        #expect(Set(video.ssrcs.map(\.ssrc)).count == 6)
        let rid = try #require(video.extmaps.first { $0.uri == SDPExtmap.ridURI })
        #expect(rid.id == 9)
        #expect(rid.direction == .sendonly)
        let repaired = try #require(video.extmaps.first { $0.uri == SDPExtmap.repairedRIDURI })
        #expect(repaired.id == 10)
        #expect(repaired.direction == .sendonly)
    }
}
