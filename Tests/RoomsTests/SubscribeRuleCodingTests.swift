import Foundation
import Testing

@testable import Rooms

/// The wire shape of a subscribe rule (PROTOCOL.md 3.4), one type for
/// `join.rules`, `updateSubscriptions.rules` and the REST `Rules` parameter.
@Suite struct SubscribeRuleCodingTests {
    @Test func decodesTwiliosShape() throws {
        let text = #"[{"type":"include","all":true},{"type":"exclude","track":"MT1"},{"type":"include","kind":"video","publisher":"bob","all":null}]"#
        #expect(
            try JSONDecoder().decode([SubscribeRule].self, from: Data(text.utf8))
                == [.init(type: .include, all: true), .init(type: .exclude, track: "MT1"), .init(type: .include, kind: .video, publisher: "bob")])
        #expect(try JSONDecoder().decode([SubscribeRule].self, from: Data("[]".utf8)) == [])
    }

    /// The same checks as before the fold: a rule naming no criterion
    /// (`all: false` adds none) is refused, as are unknown kinds and types.
    @Test(arguments: [
        "", "{}", #"[{"type":"include"}]"#, #"[{"type":"include","all":false}]"#, #"[{"type":"include","kind":"data"}]"#,
        #"[{"type":"maybe","all":true}]"#, #"[{"all":true}]"#, #"[{"type":"include","track":5}]"#, "[1]",
    ])
    func refusesWhatTheProtocolRefuses(text: String) {
        #expect(throws: DecodingError.self, "\(text)") {
            try JSONDecoder().decode([SubscribeRule].self, from: Data(text.utf8))
        }
    }

    /// Encoded as Twilio writes rules: `all` only when true, absent criteria omitted.
    @Test func encodesTheWireShape() throws {
        let rules: [SubscribeRule] = [.init(type: .include, all: true), .init(type: .exclude, kind: .video, publisher: "bob")]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(rules), as: UTF8.self)
        #expect(text == #"[{"all":true,"type":"include"},{"kind":"video","publisher":"bob","type":"exclude"}]"#)
        #expect(try JSONDecoder().decode([SubscribeRule].self, from: Data(text.utf8)) == rules)
    }

    @Test func trackKindNamesTheAcceptedValues() {
        do {
            _ = try JSONDecoder().decode([TrackKind].self, from: Data(#"["audio","data"]"#.utf8))
            Issue.record("data accepted")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.debugDescription == #"must be one of "audio", "video""#)
            #expect(context.codingPath.map(\.intValue) == [1])
        } catch {
            Issue.record("\(error)")
        }
    }
}
