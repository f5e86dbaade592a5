import Testing

@testable import MediaIO

/// The demux's ufrag key: equal exactly when the ufrags are equal.
@Suite struct UfragKeyTests {
    static func key(_ text: String) -> UfragKey? {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { UfragKey(UnsafeRawBufferPointer($0)) }
    }

    @Test func bytesAndStringGiveTheSameKey() {
        for ufrag in ["a", "abcd", "Zq9+/xY2", "0123456789abcdef"] {
            #expect(Self.key(ufrag) == UfragKey(ufrag), "\(ufrag)")
            #expect(Self.key(ufrag) != nil)
        }
    }

    @Test func differentUfragsGiveDifferentKeys() {
        let ufrags = ["abcdefgh", "abcdefg", "abcdefgi", "bbcdefgh", "abcdefgh1", "abcdefgh2", "abcdefgh\u{0}", "0123456789abcdef"]
        let keys = ufrags.compactMap(UfragKey.init)
        #expect(keys.count == ufrags.count)
        #expect(Set(keys).count == ufrags.count, "two ufrags share a key")
    }

    @Test func noKeyForWhatCannotBeOurs() {
        #expect(UfragKey("") == nil)
        #expect(UfragKey(String(repeating: "x", count: 17)) == nil)
    }
}
