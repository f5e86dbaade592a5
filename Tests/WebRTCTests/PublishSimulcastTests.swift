import SDP
import Testing
@testable import WebRTC

/// RID simulcast publish offers (PROTOCOL.md section 7, RFC 8853): the real
/// ones of Chromium 156 and Firefox ESR 153, and edits of Chromium's.
@Suite struct PublishSimulcastTests {
    /// Chromium's simulcast offer with `edit` applied to its text.
    func chromium(_ edit: (String) -> String = { $0 }) throws -> String {
        edit(try NegotiationFixture.chromiumSimulcastOffer.text())
    }

    func answer(_ text: String) throws -> PublishAnswer {
        try PublishNegotiation.answer(
            offerText: text, transport: NegotiationFixture.transport, sessionID: "1", sessionVersion: 1)
    }

    /// The answer's `a=` lines of mid `0` after `a=mid`.
    func lines(after mid: String = "0", in answer: PublishAnswer) throws -> [String] {
        let media = try #require(answer.sdp.media.first { $0.mid == mid })
        let lines = media.lines
        let start = try #require(lines.firstIndex(of: "mid:\(mid)"))
        return Array(lines[(start + 1)...])
    }

    @Test func chromiumAnswerHasWhatChromiumNeeds() throws {
        let answer = try NegotiationFixture.chromiumSimulcastOffer.answer()
        let video = try #require(answer.media(withMID: "0"))
        #expect(video.simulcast == NegotiatedSimulcast(rids: ["q", "h", "f"]))
        #expect(video.simulcast?.rids == ["q", "h", "f"])
        #expect(video.headerExtensions.rid == 10)
        #expect(video.headerExtensions.repairedRID == 11)
        #expect(video.headerExtensions.mid == 9)
        #expect(video.codec == NegotiatedCodec(name: .vp8, payloadType: 96, rtxPayloadType: 97))
        #expect(answer.sdp.media[0].mediaLine == "video 7882 UDP/TLS/RTP/SAVPF 96 97")
        #expect(try lines(in: answer) == [
            "extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
            "extmap:4 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
            "extmap:9 urn:ietf:params:rtp-hdrext:sdes:mid",
            "extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id",
            "extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id",
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
            "rid:q recv",
            "rid:h recv",
            "rid:f recv",
            "simulcast:recv q;h;f",
        ])
        // The text Chromium reads has them as written lines.
        #expect(answer.text.contains("\r\na=rid:q recv\r\na=rid:h recv\r\na=rid:f recv\r\na=simulcast:recv q;h;f\r\n"))
    }

    @Test func firefoxAnswer() throws {
        let answer = try NegotiationFixture.firefoxSimulcastOffer.answer()
        let video = try #require(answer.media(withMID: "0"))
        #expect(video.simulcast?.rids == ["q", "h", "f"])
        #expect(video.headerExtensions.rid == 9)
        #expect(video.headerExtensions.repairedRID == 10)
        #expect(video.codec == NegotiatedCodec(name: .vp8, payloadType: 120, rtxPayloadType: 124))
        let answerLines = try lines(in: answer)
        // Firefox's `a=extmap:9/sendonly` is answered `recvonly` (RFC 8285 section 7).
        #expect(answerLines.contains("extmap:9/recvonly urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"))
        #expect(answerLines.contains("extmap:10/recvonly urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"))
        #expect(Array(answerLines.suffix(4)) == ["rid:q recv", "rid:h recv", "rid:f recv", "simulcast:recv q;h;f"])
    }

    @Test(arguments: [NegotiationFixture.chromiumSimulcastOffer, .firefoxSimulcastOffer])
    func answerRoundTripsThroughTheParser(_ fixture: NegotiationFixture) throws {
        let answer = try fixture.answer()
        let reparsed = try SessionDescription(parsing: answer.text)
        #expect(reparsed == answer.sdp)
        let video = try #require(reparsed.media.first)
        #expect(video.rids == [SDPRID(id: "q", direction: .recv), SDPRID(id: "h", direction: .recv), SDPRID(id: "f", direction: .recv)])
        #expect(video.simulcast?.recv.map { $0.map(\.rid) } == [["q"], ["h"], ["f"]])
        #expect(video.simulcast?.send == [])
    }

    /// The order is the offer's `a=simulcast` order, not the `a=rid` lines'.
    @Test func layersFollowTheSimulcastLine() throws {
        let answer = try answer(chromium { $0.replacingOccurrences(of: "a=simulcast:send q;h;f", with: "a=simulcast:send h;q;f") })
        #expect(answer.media[0].simulcast?.rids == ["h", "q", "f"])
        #expect(try lines(in: answer).suffix(4) == ["rid:h recv", "rid:q recv", "rid:f recv", "simulcast:recv h;q;f"])
    }

    /// Of `q,h;f` the first alternative of each stream is taken; `h` is left
    /// out of the answer.
    @Test func firstAlternativeOfEachStream() throws {
        let answer = try answer(chromium { $0.replacingOccurrences(of: "a=simulcast:send q;h;f", with: "a=simulcast:send q,h;f") })
        #expect(answer.media[0].simulcast?.rids == ["q", "f"])
        #expect(try lines(in: answer).suffix(3) == ["rid:q recv", "rid:f recv", "simulcast:recv q;f"])
    }

    /// A `~` layer is accepted, marked paused, and stays paused in the answer.
    @Test func pausedLayerStaysPaused() throws {
        let answer = try answer(chromium { $0.replacingOccurrences(of: "a=simulcast:send q;h;f", with: "a=simulcast:send q;h;~f") })
        let simulcast = try #require(answer.media[0].simulcast)
        #expect(simulcast.rids == ["q", "h", "f"])
        #expect(simulcast.layers.map(\.paused) == [false, false, true])
        #expect(try lines(in: answer).last == "simulcast:recv q;h;~f")
    }

    @Test func restrictionsAreExposedPerLayer() throws {
        let answer = try answer(chromium {
            $0.replacingOccurrences(of: "a=rid:q send\r\n", with: "a=rid:q send max-width=320;max-height=180;max-fps=15\r\n")
                .replacingOccurrences(of: "a=rid:h send\r\n", with: "a=rid:h send max-width=640\r\n")
        })
        let layers = try #require(answer.media[0].simulcast?.layers)
        #expect(layers == [
            NegotiatedSimulcast.Layer(rid: "q", maxWidth: 320, maxHeight: 180),
            NegotiatedSimulcast.Layer(rid: "h", maxWidth: 640),
            NegotiatedSimulcast.Layer(rid: "f"),
        ])
        // The answer does not repeat the offerer's own limits.
        #expect(try lines(in: answer).contains("rid:q recv"))
    }

    /// A layer whose `pt=` list leaves VP8 (96) out cannot be sent in VP8.
    @Test func layerRestrictedToAnotherCodecIsLeftOut() throws {
        let answer = try answer(chromium { $0.replacingOccurrences(of: "a=rid:h send\r\n", with: "a=rid:h send pt=98\r\n") })
        #expect(answer.media[0].simulcast?.rids == ["q", "f"])
        let allowed = try self.answer(chromium { $0.replacingOccurrences(of: "a=rid:h send\r\n", with: "a=rid:h send pt=98,96\r\n") })
        #expect(allowed.media[0].simulcast?.rids == ["q", "h", "f"])
    }

    /// Without the rid extension nothing tells the layers apart: the
    /// answer declines simulcast (no a=simulcast, no a=rid, no RID
    /// extmaps) and the client sends one stream.
    @Test(arguments: [
        "a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id\r\n",
        "a=extmap:9 urn:ietf:params:rtp-hdrext:sdes:mid\r\n",
    ])
    func declinedWithoutRIDOrMIDExtension(_ removed: String) throws {
        let answer = try answer(chromium { $0.replacingOccurrences(of: removed, with: "") })
        let video = answer.media[0]
        #expect(video.isAccepted)
        #expect(video.simulcast == nil)
        #expect(video.headerExtensions.rid == nil)
        #expect(video.headerExtensions.repairedRID == nil)
        let answerLines = try lines(in: answer)
        #expect(!answerLines.contains { $0.hasPrefix("simulcast") || $0.hasPrefix("rid:") })
        #expect(!answerLines.contains { $0.contains("rtp-stream-id") })
        // RTX of one stream is routed by its SSRC as before.
        #expect(video.codec?.rtxPayloadType == 97)
    }

    /// Firefox marks its rid extmap `sendonly`; one the client only
    /// receives cannot tag what it sends.
    @Test func declinedWhenTheRIDExtensionIsNotSent() throws {
        let text = try NegotiationFixture.firefoxSimulcastOffer.text()
        let answer = try answer(text.replacingOccurrences(of: "a=extmap:9/sendonly", with: "a=extmap:9/recvonly"))
        #expect(answer.media[0].simulcast == nil)
    }

    /// With the repaired-rid extension RTX is kept (the server routes each
    /// layer's RTX by it); without it RTX is dropped from the answer.
    @Test func rtxNeedsRepairedRID() throws {
        let with = try answer(chromium())
        #expect(with.media[0].codec?.rtxPayloadType == 97)
        #expect(try lines(in: with).contains("fmtp:97 apt=96"))

        let without = try answer(chromium {
            $0.replacingOccurrences(of: "a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id\r\n", with: "")
        })
        let video = without.media[0]
        #expect(video.simulcast?.rids == ["q", "h", "f"])
        #expect(video.headerExtensions.rid == 10)
        #expect(video.headerExtensions.repairedRID == nil)
        #expect(without.ridExtensionID == 10)
        #expect(without.repairedRIDExtensionID == nil)
        #expect(video.codec == NegotiatedCodec(name: .vp8, payloadType: 96, rtxPayloadType: nil))
        #expect(without.sdp.media[0].mediaLine == "video 7882 UDP/TLS/RTP/SAVPF 96")
        let answerLines = try lines(in: without)
        #expect(!answerLines.contains { $0.contains("rtx") || $0.contains("apt=") || $0.contains("repaired") })
        // NACK and PLI stay: the client retransmits nothing, but keyframes still come.
        #expect(video.feedback.contains([.nack, .pli]))
    }

    /// An unpublished track's m-line goes `inactive` (or `recvonly`, after
    /// `removeTrack` on a `sendrecv` transceiver) with its layers still
    /// offered: the answer keeps the simulcast and the RID extensions, or
    /// Chromium refuses its own next offer (the meeting page's camera
    /// switch failed so: "negotiates simulcast but does not negotiate the
    /// RID RTP header extension").
    @Test(arguments: [("inactive", "inactive"), ("recvonly", "inactive")])
    func keptOnAnMLineThatDoesNotSend(offered: String, answered: String) throws {
        let answer = try answer(chromium { $0.replacingOccurrences(of: "a=sendonly\r\n", with: "a=\(offered)\r\n") })
        #expect(answer.media[0].simulcast?.layers.map(\.rid) == ["q", "h", "f"])
        let answerLines = try lines(in: answer)
        #expect(answerLines.contains("simulcast:recv q;h;f"))
        #expect(answerLines.contains { $0.hasPrefix("extmap:") && $0.hasSuffix("sdes:rtp-stream-id") })
        #expect(answerLines.contains(answered))
    }

    /// Only a recv list: the client asks to receive simulcast, which the
    /// server never sends; nothing to accept, not an error.
    @Test func recvListIsIgnored() throws {
        let answer = try answer(chromium {
            $0.replacingOccurrences(of: "a=rid:q send\r\na=rid:h send\r\na=rid:f send\r\na=simulcast:send q;h;f", with: "a=rid:q recv\r\na=simulcast:recv q")
        })
        #expect(answer.media[0].simulcast == nil)
        #expect(answer.media[0].isAccepted)
    }

    /// `a=rid` lines without `a=simulcast` are one layer.
    @Test func ridLinesWithoutSimulcastAreOneLayer() throws {
        let answer = try answer(chromium { $0.replacingOccurrences(of: "a=simulcast:send q;h;f\r\n", with: "") })
        #expect(answer.media[0].simulcast == nil)
        #expect(try !lines(in: answer).contains { $0.hasPrefix("rid:") })
    }

    /// The non-simulcast offers keep their answers: no RID extensions.
    @Test func plainOfferGetsNoRIDExtensions() throws {
        let answer = try NegotiationFixture.chromiumOffer.answer()
        let video = try #require(answer.media(withMID: "1"))
        #expect(video.simulcast == nil)
        #expect(video.headerExtensions.rid == nil)
        #expect(answer.ridExtensionID == nil)
        #expect(answer.repairedRIDExtensionID == nil)
        #expect(!answer.text.contains("rtp-stream-id"))
    }
}
