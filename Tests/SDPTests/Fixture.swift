import Foundation
import SDP
import Testing

/// The SDP fixtures in Fixtures/ (see Fixtures/README.md for how they were made).
enum Fixture: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case chromiumOffer = "chromium-offer"
    case chromiumAnswer = "chromium-answer"
    case aiortcOffer = "aiortc-offer"
    case aiortcAnswer = "aiortc-answer"
    case firefoxOffer = "firefox-offer"
    case webrtcbinOffer = "webrtcbin-offer"
    case rfc8866Example = "rfc8866-example"
    case chromiumSimulcastOffer = "chromium-simulcast-offer"
    case firefoxSimulcastOffer = "firefox-simulcast-offer"

    var testDescription: String { rawValue }

    /// The file's text exactly as stored.
    func text() throws -> String {
        let folder = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        let data = try Data(contentsOf: folder.appendingPathComponent("\(rawValue).sdp"))
        return try #require(String(data: data, encoding: .utf8))
    }

    func parsed() throws -> SessionDescription {
        try SessionDescription(parsing: text())
    }
}

/// A small SplitMix64 (the same algorithm as VroomTesting.SeededGenerator):
/// SDPTests depends only on SDP, so it carries its own copy.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
