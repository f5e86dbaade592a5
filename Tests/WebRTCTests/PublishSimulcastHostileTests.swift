import SDP
import Testing
import WebRTC

/// Simulcast offers the server cannot route or that break RFC 8851/8853:
/// refused with 53403 ServerRemoteDescFailed (PROTOCOL.md section 4), so no
/// answer is made and the connection keeps its previous one. Each is an
/// edit of Chromium 156's real simulcast offer.
@Suite struct PublishSimulcastHostileTests {
    static let rids = "a=rid:q send\r\na=rid:h send\r\na=rid:f send\r\n"
    static let simulcast = "a=simulcast:send q;h;f"

    /// Chromium's simulcast offer with its rid and simulcast lines replaced.
    func offer(rids: String = rids, simulcast: String = simulcast) throws -> String {
        let text = try NegotiationFixture.chromiumSimulcastOffer.text()
        #expect(text.contains(Self.rids + Self.simulcast))
        return text.replacingOccurrences(of: Self.rids + Self.simulcast, with: rids + simulcast)
    }

    func answerError(_ text: String, previous: PublishAnswer? = nil) -> NegotiationError? {
        negotiationError {
            _ = try PublishNegotiation.answer(
                offerText: text, transport: NegotiationFixture.transport, sessionID: "1", sessionVersion: 2,
                previous: previous)
        }
    }

    /// Expects 53403 with `reason` in the message.
    func expectRefused(_ text: String, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = answerError(text)
        #expect(error?.code == 53403, sourceLocation: sourceLocation)
        #expect(error?.message.contains(reason) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    /// The unedited offer is answered: each refusal below is the edit's.
    @Test func theOriginalIsAnswered() throws {
        #expect(answerError(try offer()) == nil)
    }

    @Test func duplicateRIDLine() throws {
        expectRefused(try offer(rids: Self.rids + "a=rid:h send\r\n"), "a=rid:h appears twice")
    }

    @Test(arguments: ["a=simulcast:send q;h;q", "a=simulcast:send q;h,q;f", "a=simulcast:send q;h;f recv h"])
    func duplicateRIDInSimulcast(_ line: String) throws {
        expectRefused(try offer(simulcast: line), "appears twice in a=simulcast")
    }

    @Test func moreThanThreeLayers() throws {
        let text = try offer(rids: Self.rids + "a=rid:x send\r\n", simulcast: "a=simulcast:send q;h;f;x")
        expectRefused(text, "4 layers; at most 3")
        // Three of them, the fourth as an alternative, are fine.
        #expect(answerError(try offer(rids: Self.rids + "a=rid:x send\r\n", simulcast: "a=simulcast:send q;h;f,x")) == nil)
    }

    @Test(arguments: ["a=simulcast:send q;h;f;", "a=simulcast:send q;h;x", "a=simulcast:send q;h,x;f"])
    func simulcastNamesAnUndeclaredRID(_ line: String) throws {
        if line.hasSuffix(";") {
            // An empty stream does not parse (RFC 8853 section 5.1 grammar).
            expectRefused(try offer(simulcast: line), "does not parse")
        } else {
            expectRefused(try offer(simulcast: line), "rid 'x', which has no a=rid line")
        }
    }

    @Test func recvRIDInTheSendList() throws {
        let rids = Self.rids.replacingOccurrences(of: "a=rid:h send", with: "a=rid:h recv")
        expectRefused(try offer(rids: rids), "names rid 'h', whose a=rid line says recv")
    }

    @Test(arguments: [
        ("a=rid:q.1 send\r\n", "q.1"),
        ("a=rid:q\u{e9} send\r\n", "q\u{e9}"),
        ("a=rid:abcdefghijklmnopq send\r\n", "abcdefghijklmnopq"),
    ])
    func ridNotAToken(_ line: String, _ id: String) throws {
        let text = try offer(rids: Self.rids.replacingOccurrences(of: "a=rid:q send\r\n", with: line),
                             simulcast: Self.simulcast.replacingOccurrences(of: "send q;", with: "send \(id);"))
        expectRefused(text, "rid '\(id)' is not 1-16")
    }

    /// 16 characters is the limit, not past it.
    @Test func sixteenCharacterRIDIsFine() throws {
        let id = "abcdefghijklmno_"
        let text = try offer(rids: Self.rids.replacingOccurrences(of: "a=rid:q send", with: "a=rid:\(id) send"),
                             simulcast: "a=simulcast:send \(id);h;f")
        let answer = try PublishNegotiation.answer(
            offerText: text, transport: NegotiationFixture.transport, sessionID: "1", sessionVersion: 1)
        #expect(answer.media[0].simulcast?.rids == [id, "h", "f"])
    }

    @Test func simulcastOnAudio() throws {
        // Chromium's two-track offer: its audio m-line gets rid and simulcast lines.
        let text = try NegotiationFixture.chromiumOffer.text()
        let edited = text.replacingOccurrences(of: "a=rtpmap:111 opus/48000/2\r\n", with: "a=rtpmap:111 opus/48000/2\r\n" + Self.rids + Self.simulcast + "\r\n")
        #expect(edited != text)
        expectRefused(edited, "a=simulcast on a audio m-line")
    }

    @Test func twoSimulcastLines() throws {
        expectRefused(try offer(simulcast: Self.simulcast + "\r\n" + Self.simulcast), "a=simulcast appears 2 times")
    }

    @Test func malformedRIDLine() throws {
        // Two spaces: the parser keeps the line untyped.
        expectRefused(try offer(rids: Self.rids.replacingOccurrences(of: "a=rid:h send", with: "a=rid:h  send")), "an a=rid line does not parse")
    }

    @Test func badPayloadTypeRestriction() throws {
        expectRefused(try offer(rids: Self.rids.replacingOccurrences(of: "a=rid:h send", with: "a=rid:h send pt=96,x")), "not a list of payload types")
    }

    /// The rid extension IDs go through the same extmap checks as every
    /// other: Chromium's offer allows two-byte IDs (extmap-allow-mixed), so
    /// 1-255; 0 and 256 are refused.
    @Test(arguments: [
        ("a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id", "a=extmap:0 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"),
        ("a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id", "a=extmap:256 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"),
        ("a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id", "a=extmap:0 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"),
        ("a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id", "a=extmap:256 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"),
        // One ID naming the rid and the mid extension.
        ("a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id", "a=extmap:9 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"),
    ])
    func ridExtensionIDOutOfRange(_ original: String, _ replacement: String) throws {
        let text = try offer().replacingOccurrences(of: original, with: replacement)
        #expect(text.contains(replacement))
        expectRefused(text, "extmap id")
        // 255 is the top of the two-byte range.
        let top = replacement.replacingOccurrences(of: ":256 ", with: ":255 ")
        if top != replacement {
            let answer = try PublishNegotiation.answer(
                offerText: try offer().replacingOccurrences(of: original, with: top),
                transport: NegotiationFixture.transport, sessionID: "1", sessionVersion: 1)
            #expect(answer.media[0].simulcast != nil)
            #expect([answer.media[0].headerExtensions.rid, answer.media[0].headerExtensions.repairedRID].contains(255))
        }
    }

    /// Firefox declares an SSRC pair per layer; its third layer's SSRC
    /// declared again on a second m-line could not be routed.
    @Test func layerSSRCOnTwoMLines() throws {
        let text = try NegotiationFixture.firefoxSimulcastOffer.text()
        let ssrcs = text.components(separatedBy: "\r\n").filter { $0.hasPrefix("a=ssrc:") }
        let last = try #require(ssrcs.last)
        // A second video m-line (mid 1, bundled) sending one stream on that SSRC.
        let video = try #require(text.range(of: "m=video"))
        let second = String(text[video.lowerBound...])
            .replacingOccurrences(of: "a=mid:0", with: "a=mid:1")
            .components(separatedBy: "\r\n")
            .filter { !$0.hasPrefix("a=rid:") && !$0.hasPrefix("a=simulcast:") && !$0.hasPrefix("a=ssrc") }
            .joined(separator: "\r\n")
        let base = text.replacingOccurrences(of: "a=group:BUNDLE 0", with: "a=group:BUNDLE 0 1") + second
        #expect(answerError(base) == nil)
        expectRefused(base.replacingOccurrences(of: "a=mid:1\r\n", with: "a=mid:1\r\n\(last)\r\n"), "already declared")
    }

    /// Chromium's simulcast m-line twice (mids 0 and 1), the second with
    /// `edit` applied to its lines.
    func twoSimulcastMLines(_ edit: (String) -> String = { $0 }) throws -> String {
        let text = try offer()
        let video = try #require(text.range(of: "m=video"))
        let second = edit(String(text[video.lowerBound...]).replacingOccurrences(of: "a=mid:0", with: "a=mid:1"))
        return text.replacingOccurrences(of: "a=group:BUNDLE 0", with: "a=group:BUNDLE 0 1") + second
    }

    /// The connection has one rid ID: two simulcast m-lines that disagree,
    /// or a rid ID naming another extension on another m-line, are refused.
    @Test func ridExtensionIDsDisagreeAcrossTheBundle() throws {
        let both = try PublishNegotiation.answer(
            offerText: try twoSimulcastMLines(), transport: NegotiationFixture.transport, sessionID: "1", sessionVersion: 1)
        #expect(both.media.map { $0.simulcast?.rids } == [["q", "h", "f"], ["q", "h", "f"]])
        #expect(both.ridExtensionID == 10)
        #expect(both.repairedRIDExtensionID == 11)

        let moved = try twoSimulcastMLines {
            $0.replacingOccurrences(of: "a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id", with: "a=extmap:12 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id")
        }
        expectRefused(moved, "different extmap ids")

        // The second m-line without simulcast, using 10 for another extension.
        let clash = try twoSimulcastMLines {
            $0.replacingOccurrences(of: "a=simulcast:send q;h;f\r\n", with: "")
                .replacingOccurrences(of: "a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id", with: "a=extmap:10 urn:x-example:other")
        }
        expectRefused(clash, "extmap id 10 is urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id on a simulcast m-line")
    }

    /// A hostile renegotiation is refused like a first offer: the caller
    /// keeps the previous answer, whose simulcast is unchanged.
    @Test func hostileRenegotiationChangesNothing() throws {
        let first = try PublishNegotiation.answer(
            offerText: try offer(), transport: NegotiationFixture.transport, sessionID: "1", sessionVersion: 1)
        let hostile = try offer(rids: Self.rids + "a=rid:h send\r\n")
        #expect(answerError(hostile, previous: first)?.code == 53403)
        #expect(first.media[0].simulcast?.rids == ["q", "h", "f"])
    }
}
