import Testing

@testable import Signaling

/// "A trap means a bug in the codec, never bad input": seeded random and
/// mutated frames all come back as one of the three verdicts.
@Suite struct SignalingCodecRobustnessTests {
    /// SplitMix64: tiny, seeded, the same sequence on every run.
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let validFrames = [
        #"{"type":"join","id":"1","room":"standup","name":"Alice","resume":"tok","rules":[{"type":"include","all":true}]}"#,
        #"{"type":"publish","id":"2","sdp":"v=0","tracks":[{"mid":"0","name":"mic","kind":"audio","enabled":true}]}"#,
        #"{"type":"unpublish","trackSid":"MT1"}"#,
        #"{"type":"setTrackEnabled","id":"3","trackSid":"MT1","enabled":false}"#,
        #"{"type":"interruption","kind":"camera","state":"began","reason":"x"}"#,
        #"{"type":"updateSubscriptions","rules":[{"type":"exclude","kind":"video","publisher":"bob","track":"cam"}]}"#,
        #"{"type":"restartIce","id":"4"}"#,
        #"{"type":"subscribeAnswer","sdp":"v=0\r\n"}"#,
        #"{"type":"sendMessage","id":"7","content":"{\"k\":1}","contentType":"application/json","to":["bob"]}"#,
        #"{"type":"ping"}"#, #"{"type":"leave"}"#, #"{"type":"candidate","candidate":"c"}"#,
    ]

    /// Bytes that matter to JSON, plus a few multi-byte scalars.
    static let alphabet: [Character] = Array(#"{}[]":,\ntrufalse0123456789.-+eE"#) + ["é", "\u{0}", "\u{1F600}", "\u{FFFF}", "\\"]

    static let knownTypes: Set<String> = [
        "join", "publish", "unpublish", "setTrackEnabled", "interruption", "updateSubscriptions", "restartIce",
        "subscribeAnswer", "sendMessage", "ping", "leave", "candidate",
    ]

    static func check(_ frame: String) -> Bool {
        switch SignalingCodec.decode(frame) {
        case .request:
            return true
        case .ignored(let type):
            // Only unknown types are ignored.
            return !knownTypes.contains(type)
        case .invalid(_, let error, _):
            return error.code == .signalingIncomingMessageInvalid
        }
    }

    @Test func randomStringsNeverTrap() {
        var rng = SplitMix64(state: 0x5EED_0001)
        var counts = [0, 0, 0]
        for _ in 0..<10_000 {
            let length = Int.random(in: 0..<64, using: &rng)
            let frame = String((0..<length).map { _ in Self.alphabet.randomElement(using: &rng)! })
            #expect(Self.check(frame), "\(frame.debugDescription)")
            switch SignalingCodec.decode(frame) {
            case .request: counts[0] += 1
            case .ignored: counts[1] += 1
            case .invalid: counts[2] += 1
            }
        }
        #expect(counts[2] > 9_000)
    }

    @Test func mutatedValidFramesNeverTrap() {
        var rng = SplitMix64(state: 0x5EED_0002)
        var verdicts = Set<String>()
        for round in 0..<10_000 {
            var scalars = Array(Self.validFrames[round % Self.validFrames.count].unicodeScalars)
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let position = Int.random(in: 0..<max(scalars.count, 1), using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0 where !scalars.isEmpty: scalars.remove(at: position)
                case 1: scalars.insert(Self.alphabet.randomElement(using: &rng)!.unicodeScalars.first!, at: min(position, scalars.count))
                case 2 where !scalars.isEmpty: scalars[position] = Self.alphabet.randomElement(using: &rng)!.unicodeScalars.first!
                default:
                    // Duplicate a slice: repeated keys, doubled brackets.
                    let end = min(scalars.count, position + Int.random(in: 1...12, using: &rng))
                    scalars.insert(contentsOf: scalars[min(position, end)..<end], at: min(position, scalars.count))
                }
            }
            var frame = ""
            frame.unicodeScalars.append(contentsOf: scalars)
            #expect(Self.check(frame), "\(frame.debugDescription)")
            switch SignalingCodec.decode(frame) {
            case .request: verdicts.insert("request")
            case .ignored: verdicts.insert("ignored")
            case .invalid: verdicts.insert("invalid")
            }
        }
        // Mutations both break frames and leave some intact.
        #expect(verdicts.contains("request") && verdicts.contains("invalid"))
    }

    @Test(arguments: [1, 100, 500, 511, 512, 513, 1_000, 20_000])
    func nestingDepthNeverTraps(depth: Int) {
        let frame = #"{"type":"ping","x":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        #expect(Self.check(frame))
        let objects = #"{"type":"ping","x":"# + String(repeating: #"{"a":"#, count: depth) + "1"
            + String(repeating: "}", count: depth) + "}"
        #expect(Self.check(objects))
    }

    @Test func hugeNumbersAndOddScalarsNeverTrap() {
        for frame in [
            #"{"type":"setTrackEnabled","trackSid":"MT","enabled":1e999}"#,
            #"{"type":"ping","id":"\ud800"}"#, #"{"type":"ping","n":-0}"#,
            #"{"type":"ping","n":123456789012345678901234567890}"#, "{\"type\":\"ping\"}\u{0}",
            #"{"type":"pi\u0000ng"}"#, "\u{FEFF}{\"type\":\"ping\"}", #"{"type":"ping"} {"type":"leave"}"#,
        ] {
            #expect(Self.check(frame), "\(frame.debugDescription)")
        }
    }
}
