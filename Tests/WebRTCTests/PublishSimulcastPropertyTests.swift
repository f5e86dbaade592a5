import SDP
import Testing
import VroomTesting
import WebRTC

/// Random `a=rid` / `a=simulcast` lines in Chromium's simulcast offer: the
/// negotiation never traps, refuses only with 53403, and whatever it accepts
/// is routable (at most 3 layers of distinct RFC 8851 tokens, each with an
/// `a=rid send` line in the offer) and written in an answer that parses.
@Suite struct PublishSimulcastPropertyTests {
    static let goodIDs = ["q", "h", "f", "x", "1", "a-b", "c_d", "abcdefghijklmnop"]
    static let badIDs = ["q.1", "abcdefghijklmnopq", "~q", "h", "q\u{e9}", "*"]

    /// Mostly honest layer lists with a random flaw now and then: a bad or
    /// repeated id, a missing or `recv` a=rid line, a fourth layer,
    /// alternatives, restrictions.
    static func randomLines(_ random: inout SeededGenerator) -> String {
        func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
        var ids: [String] = []
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let pool = chance(90) ? goodIDs : badIDs
            ids.append(pool.randomElement(using: &random) ?? "q")
        }
        var lines = ""
        for id in ids where chance(95) {
            let direction = chance(95) ? "send" : "recv"
            let restriction = ["", "", " max-width=320;max-height=180", " pt=96", " pt=98", " max-height=x"]
                .randomElement(using: &random) ?? ""
            lines += "a=rid:\(id) \(direction)\(restriction)\r\n"
        }
        if chance(10) { lines += "a=rid:\(badIDs.randomElement(using: &random) ?? "q") send\r\n" }
        var streams: [String] = []
        var index = 0
        while index < ids.count {
            if index + 1 < ids.count, chance(15) {
                streams.append(ids[index] + "," + ids[index + 1])
                index += 2
            } else {
                streams.append((chance(5) ? "~" : "") + ids[index])
                index += 1
            }
        }
        if chance(95) { lines += "a=simulcast:send \(streams.joined(separator: ";"))\r\n" }
        return lines
    }

    @Test func randomSimulcastLines() throws {
        let original = try NegotiationFixture.chromiumSimulcastOffer.text()
        let block = "a=rid:q send\r\na=rid:h send\r\na=rid:f send\r\na=simulcast:send q;h;f\r\n"
        #expect(original.hasSuffix(block))
        var random = SeededGenerator(seed: 8853)
        var accepted = 0
        var refused = 0
        for _ in 0..<500 {
            let text = original.replacingOccurrences(of: block, with: Self.randomLines(&random))
            // An empty id can make the SDP parser refuse the line itself.
            guard let offer = try? SessionDescription(parsing: String(text)) else { continue }
            let answer: PublishAnswer
            do {
                answer = try PublishNegotiation.answer(
                    offer: offer, transport: NegotiationFixture.transport, sessionID: "1", sessionVersion: 1)
            } catch {
                #expect(error.code == 53403, "\(error)")
                refused += 1
                continue
            }
            #expect(try SessionDescription(parsing: answer.text) == answer.sdp)
            guard let simulcast = answer.media[0].simulcast else { continue }
            accepted += 1
            let sendRIDs = Set(offer.media[0].rids.filter { $0.direction == .send }.map(\.id))
            #expect(simulcast.layers.count <= 3)
            #expect(Set(simulcast.rids).count == simulcast.rids.count)
            for rid in simulcast.rids {
                #expect(sendRIDs.contains(rid))
                #expect(rid.utf8.count <= 16 && rid.utf8.allSatisfy { $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
            }
            #expect(answer.sdp.media[0].simulcast?.recv.map { $0.map(\.rid) } == simulcast.rids.map { [$0] })
        }
        // Both outcomes occur, so the properties above were exercised.
        #expect(accepted > 10 && refused > 10, "accepted \(accepted), refused \(refused)")
    }
}
