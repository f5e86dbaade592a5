import SDP
import Testing

/// Random and mutated input: parsing throws an SDPError or succeeds, never
/// traps (a trap would kill the test process), and whatever parses writes
/// back to text that parses to the same value.
@Suite struct SDPRobustnessTests {
    static let fragments = [
        "v=0", "o=- 1 2 IN IP4 0.0.0.0", "s=-", "t=0 0", "c=IN IP4 127.0.0.1", "b=AS:30", "m=audio 9 UDP/TLS/RTP/SAVPF 111",
        "m=video 0 RTP/AVP 96", "a=rtpmap:111 opus/48000/2", "a=fmtp:111 minptime=10", "a=candidate:1 1 udp 1 ::1 9 typ host",
        "a=extmap:2/recvonly urn:x", "a=ssrc:1 cname:x", "a=group:BUNDLE 0", "a=simulcast:send a;~b", "a=rid:a send",
        "a=setup:actpass", "a=fingerprint:sha-256 AA", "a=mid:0", "a=bundle-only", "r=1", "z=0", "k=clear", "i=x", "e=x",
        "", "=", "a=", "a=:", "x=1", "m=", "a=ssrc-group:FID 1 2", "a=msid-semantic: WMS", "a=rtcp-fb:* nack",
    ]
    static let bytes: [UInt8] = Array("vosticbmarzkeu=: /;,~*0123456789-\r\n\u{301}é".utf8) + [0xFF, 0x00]

    static func check(_ text: String) {
        guard let parsed = try? SessionDescription(parsing: text) else { return }
        let written = parsed.text
        guard let reparsed = try? SessionDescription(parsing: written) else {
            Issue.record("written text does not parse: \(text.debugDescription) -> \(written.debugDescription)")
            return
        }
        #expect(reparsed == parsed, "\(text.debugDescription)")
        #expect(Array(reparsed.text.utf8) == Array(written.utf8))
    }

    @Test func randomLineSequences() {
        var rng = SplitMix64(seed: 0xBAD_5D9)
        for _ in 0..<10_000 {
            let count = Int.random(in: 0...12, using: &rng)
            var lines = ["v=0", "o=- 1 2 IN IP4 0.0.0.0", "s=-", "t=0 0"].prefix(Int.random(in: 0...4, using: &rng)).map { $0 }
            for _ in 0..<count { lines.append(Self.fragments.randomElement(using: &rng)!) }
            Self.check(lines.joined(separator: Bool.random(using: &rng) ? "\r\n" : "\n"))
        }
    }

    @Test func randomBytes() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<10_000 {
            let count = Int.random(in: 0...200, using: &rng)
            var bytes = Array("v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n".utf8).prefix(Int.random(in: 0...40, using: &rng)).map { $0 }
            for _ in 0..<count { bytes.append(Self.bytes.randomElement(using: &rng)!) }
            Self.check(String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test(arguments: Fixture.allCases)
    func mutatedFixtures(_ fixture: Fixture) throws {
        let original = Array(try fixture.text().utf8)
        var rng = SplitMix64(seed: UInt64(fixture.rawValue.utf8.count))
        for _ in 0..<600 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let index = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0...3, using: &rng) {
                case 0: bytes[index] = Self.bytes.randomElement(using: &rng)!
                case 1: bytes[index] ^= 1 << UInt8.random(in: 0...7, using: &rng)
                case 2: bytes.remove(at: index)
                default: bytes.insert(Self.bytes.randomElement(using: &rng)!, at: index)
                }
                if bytes.isEmpty { bytes = [0x76] }
            }
            if Bool.random(using: &rng) { bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng))) }
            Self.check(String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test func mutatedLinesKeepTheirNumbers() throws {
        // Replacing any line but v= with text that is not `<letter>=<value>`
        // must be refused, naming exactly that line.
        let lines = try Fixture.chromiumOffer.text().components(separatedBy: "\r\n")
        for index in 1..<(lines.count - 1) {
            var broken = lines
            broken[index] = "garbage"
            do {
                _ = try SessionDescription(parsing: broken.joined(separator: "\r\n"))
                Issue.record("line \(index + 1) garbage accepted")
            } catch {
                #expect(error.line == index + 1)
            }
        }
    }
}
