import SDP
import Testing
import WebRTC

/// Offers that must be refused with the protocol's codes (PROTOCOL.md
/// section 4), built by editing a real Chromium or aiortc offer.
@Suite struct PublishNegotiationHostileTests {
    /// The Chromium offer with `edit` applied to its text.
    func chromium(_ edit: (String) -> String) throws -> String {
        edit(try NegotiationFixture.chromiumOffer.text())
    }

    func answerError(_ text: String) -> NegotiationError? {
        negotiationError {
            _ = try PublishNegotiation.answer(
                offerText: text, transport: NegotiationFixture.transport, sessionID: "1", sessionVersion: 1)
        }
    }

    @Test func duplicateMID() throws {
        let text = try chromium { $0.replacingOccurrences(of: "a=mid:1\r\n", with: "a=mid:0\r\n") }
        let error = try #require(answerError(text))
        #expect(error.code == 53403)
        #expect(error.message.contains("mid '0'"))
    }

    /// The video m-line declares the audio m-line's SSRC: one SSRC cannot
    /// name two streams, so nothing could route it.
    @Test func oneSSRCOnTwoMLines() throws {
        let text = try chromium { text in
            let ssrcs = text.components(separatedBy: "\r\n").filter { $0.hasPrefix("a=ssrc:") }
                .map { String($0.dropFirst(7).prefix { $0 != " " }) }
            let audio = ssrcs[0]
            let video = ssrcs.first { $0 != audio } ?? audio
            return text.replacingOccurrences(of: "a=ssrc:\(video) ", with: "a=ssrc:\(audio) ")
                .replacingOccurrences(of: "FID \(video) ", with: "FID \(audio) ")
        }
        let error = try #require(answerError(text))
        #expect(error.code == 53403)
        #expect(error.message.contains("SSRC"))
        // The fixture itself, with its distinct SSRCs, is answered.
        #expect(answerError(try chromium { $0 }) == nil)
    }

    @Test func missingMID() throws {
        let text = try chromium { $0.replacingOccurrences(of: "a=mid:1\r\n", with: "") }
        #expect(answerError(text)?.code == 53403)
    }

    @Test(arguments: [
        // id 0 is never valid; 15 is reserved in one-byte form; 256 is past two-byte form; one id may not name two URIs.
        ("a=extmap:14 urn:ietf:params:rtp-hdrext:toffset", "a=extmap:0 urn:ietf:params:rtp-hdrext:toffset", false),
        ("a=extmap:14 urn:ietf:params:rtp-hdrext:toffset", "a=extmap:15 urn:ietf:params:rtp-hdrext:toffset", false),
        ("a=extmap:14 urn:ietf:params:rtp-hdrext:toffset", "a=extmap:256 urn:ietf:params:rtp-hdrext:toffset", true),
        ("a=extmap:14 urn:ietf:params:rtp-hdrext:toffset", "a=extmap:2 urn:ietf:params:rtp-hdrext:toffset", true),
    ])
    func badExtmapID(original: String, replacement: String, allowMixed: Bool) throws {
        let text = try chromium { text in
            var text = text.replacingOccurrences(of: original, with: replacement)
            if !allowMixed { text = text.replacingOccurrences(of: "a=extmap-allow-mixed\r\n", with: "") }
            return text
        }
        #expect(answerError(text)?.code == 53403)
    }

    @Test func twoByteIDsAreFineWithAllowMixed() throws {
        // Chromium's offer carries a=extmap-allow-mixed at session level: 15-255 are valid there.
        let text = try chromium {
            $0.replacingOccurrences(of: "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid", with: "a=extmap:200 urn:ietf:params:rtp-hdrext:sdes:mid")
        }
        let answer = try PublishNegotiation.answer(
            offerText: text, transport: NegotiationFixture.transport, sessionID: "1", sessionVersion: 1)
        #expect(answer.media(withMID: "0")?.headerExtensions.mid == 200)
        // Without it, the same offer is refused.
        let oneByte = text.replacingOccurrences(of: "a=extmap-allow-mixed\r\n", with: "")
        #expect(answerError(oneByte)?.code == 53403)
    }

    @Test func hugeOffer() throws {
        // 300 KiB: a valid offer padded with unknown attributes.
        let padding = String(repeating: "a=x-padding:" + String(repeating: "p", count: 1000) + "\r\n", count: 300)
        let text = try chromium { $0 + padding }
        let error = try #require(answerError(text))
        #expect(error.code == 53403)
        #expect(error.message.contains("bytes"))
    }

    @Test func tooManyMediaSections() throws {
        let offer = try NegotiationFixture.aiortcOffer.parsed()
        var huge = offer
        huge.media = (0..<65).map { index in
            var media = offer.media[0]
            media.attributes = media.attributes.map { if case .mid = $0 { .mid("m\(index)") } else { $0 } }
            // Each copy its own SSRC: one SSRC on two m-lines is refused on its own.
            media.attributes = media.attributes.map {
                if case .ssrc(var line) = $0 {
                    line.ssrc = UInt32(1000 + index)
                    return .ssrc(line)
                }
                return $0
            }
            return media
        }
        huge.attributes = huge.attributes.map { if case .group = $0 { .group(.bundle((0..<65).map { "m\($0)" })) } else { $0 } }
        let error = negotiationError {
            _ = try PublishNegotiation.answer(
                offer: huge, transport: NegotiationFixture.transport, sessionID: "1", sessionVersion: 1)
        }
        #expect(error?.code == 53403)
        // 64 are accepted.
        huge.media.removeLast()
        let answer = try PublishNegotiation.answer(
            offer: huge, transport: NegotiationFixture.transport, sessionID: "1", sessionVersion: 1)
        #expect(answer.sendingMIDs.count == 64)
    }

    @Test func unparsable() {
        #expect(answerError("hello")?.code == 53403)
        #expect(answerError("")?.code == 53403)
    }

    @Test func noFingerprint() throws {
        let text = try chromium { $0.split(separator: "\r\n").filter { !$0.hasPrefix("a=fingerprint") }.joined(separator: "\r\n") + "\r\n" }
        let error = try #require(answerError(text))
        #expect(error.code == 53403)
        #expect(error.message.contains("fingerprint"))
    }

    @Test func onlySHA1Fingerprint() throws {
        let text = try chromium { $0.replacingOccurrences(of: "a=fingerprint:sha-256", with: "a=fingerprint:sha-1") }
        #expect(answerError(text)?.code == 53403)
    }

    @Test func noICECredentials() throws {
        let text = try chromium { $0.split(separator: "\r\n").filter { !$0.hasPrefix("a=ice-pwd") }.joined(separator: "\r\n") + "\r\n" }
        #expect(answerError(text)?.code == 53403)
    }

    @Test func noBundle() throws {
        let text = try chromium { $0.replacingOccurrences(of: "a=group:BUNDLE 0 1\r\n", with: "") }
        let error = try #require(answerError(text))
        #expect(error.code == 53403)
        #expect(error.message.contains("BUNDLE"))
    }

    @Test func noRTCPMux() throws {
        let text = try chromium { $0.replacingOccurrences(of: "a=rtcp-mux\r\n", with: "") }
        let error = try #require(answerError(text))
        #expect(error.code == 53403)
        #expect(error.message.contains("rtcp-mux"))
    }

    @Test func holdconn() throws {
        let text = try chromium { $0.replacingOccurrences(of: "a=setup:actpass", with: "a=setup:holdconn") }
        #expect(answerError(text)?.code == 53403)
    }

    @Test func onlyH264() throws {
        // The video m-line of aiortc's offer with VP8 (97) and its RTX (98) removed.
        let text = try NegotiationFixture.aiortcOffer.text()
            .replacingOccurrences(of: "m=video 60475 UDP/TLS/RTP/SAVPF 97 98 99 100 101 102", with: "m=video 60475 UDP/TLS/RTP/SAVPF 99 100 101 102")
            .replacingOccurrences(of: "a=rtpmap:97 VP8/90000\r\n", with: "")
        // The answer itself succeeds: the m-line is rejected, the audio is kept.
        let answer = try PublishNegotiation.answer(
            offerText: text, transport: NegotiationFixture.transport, sessionID: "1", sessionVersion: 1)
        let video = try #require(answer.media(withMID: "1"))
        #expect(video.rejection == .noSupportedCodec)
        #expect(!video.remoteSends)
        #expect(answer.sdp.media[1].port == 0)
        #expect(answer.sdp.media[1].lines == ["mid:1", "inactive"])
        #expect(answer.bundleMIDs == ["0"])
        #expect(answer.sendingMIDs == ["0"])
        try answer.requireCodecs(forMIDs: ["0"])
        // A track that needs the video m-line: 53404.
        let error = negotiationError { try answer.requireCodecs(forMIDs: ["0", "1"]) }
        #expect(error?.code == 53404)
    }

    @Test func audioWithoutOpus() throws {
        let text = try NegotiationFixture.aiortcOffer.text()
            .replacingOccurrences(of: "a=rtpmap:96 opus/48000/2", with: "a=rtpmap:96 opus/48000/1")
        let answer = try PublishNegotiation.answer(
            offerText: text, transport: NegotiationFixture.transport, sessionID: "1", sessionVersion: 1)
        #expect(answer.media(withMID: "0")?.rejection == .noSupportedCodec)
        #expect(negotiationError { try answer.requireCodecs(forMIDs: ["0"]) }?.code == 53404)
    }
}
