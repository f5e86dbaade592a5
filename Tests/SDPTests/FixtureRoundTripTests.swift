import SDP
import Testing

@Suite struct FixtureRoundTripTests {
    @Test(arguments: Fixture.allCases)
    func textRoundTripsByteForByte(_ fixture: Fixture) throws {
        let text = try fixture.text()
        #expect(text.hasSuffix("\r\n"), "fixtures are stored with CRLF line endings")
        let parsed = try SessionDescription(parsing: text)
        let written = parsed.text
        #expect(Array(written.utf8) == Array(text.utf8))
        // Point at the first differing line when the whole-text check fails.
        let expectedLines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        let writtenLines = written.split(separator: "\r\n", omittingEmptySubsequences: false)
        for (index, (expected, actual)) in zip(expectedLines, writtenLines).enumerated() where expected != actual {
            Issue.record("line \(index + 1): expected '\(expected)', wrote '\(actual)'")
            break
        }
    }

    @Test(arguments: Fixture.allCases)
    func valueRoundTrips(_ fixture: Fixture) throws {
        let parsed = try fixture.parsed()
        #expect(try SessionDescription(parsing: parsed.text) == parsed)
    }

    @Test(arguments: Fixture.allCases)
    func lfOnlyInputParsesToTheSameValue(_ fixture: Fixture) throws {
        let text = try fixture.text()
        let lfOnly = String(decoding: Array(text.utf8).filter { $0 != 0x0D }, as: UTF8.self)
        let parsed = try SessionDescription(parsing: lfOnly)
        #expect(parsed == (try fixture.parsed()))
        #expect(Array(parsed.text.utf8) == Array(text.utf8), "written back with CRLF")
    }

    @Test(arguments: [
        Fixture.chromiumOffer, .chromiumAnswer, .aiortcOffer, .aiortcAnswer, .firefoxOffer, .webrtcbinOffer,
        .chromiumSimulcastOffer, .firefoxSimulcastOffer,
    ])
    func webRTCFixturesHaveNoUntypedKnownAttributes(_ fixture: Fixture) throws {
        // Every attribute PROTOCOL.md section 5 needs must come out typed, not
        // as `.other`: only genuinely unknown names may remain.
        let parsed = try fixture.parsed()
        let all = parsed.attributes + parsed.media.flatMap(\.attributes)
        let others = Set(all.compactMap { if case .other(let name, _) = $0 { name } else { nil } })
        #expect(others.isSubset(of: ["rtcp-xr", "framerate"]), "untyped: \(others.sorted())")
    }
}
