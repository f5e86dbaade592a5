import Packets
import SFU
import Testing
import WebRTC

/// The dominant speaker's rules on a virtual clock, fed every 100 ms as the
/// media worker does. Levels are -dBov: 20 is loud, 40 quiet, 127 silence.
@Suite struct DominantSpeakerTests {
    struct Script {
        var detector = DominantSpeakerDetector<String>()
        var now = MediaTime.milliseconds(1_000_000)
        /// (milliseconds since the start, new speaker) for every change.
        var changes: [(ms: UInt64, speaker: String?)] = []
        let start = MediaTime.milliseconds(1_000_000)

        /// `ms` of 100 ms steps where each speaker has the given level (nil: no packets).
        mutating func run(_ ms: UInt64, _ levels: [String: UInt32?]) {
            for _ in 0..<(ms / 100) {
                now = now.adding(milliseconds: 100)
                var activity: [String: AudioActivity] = [:]
                for (speaker, level) in levels {
                    activity[speaker] = level.map { AudioActivity(packets: 5, levelSum: 5 * $0) } ?? AudioActivity()
                }
                if let change = detector.update(activity, now: now) {
                    changes.append((now.nanoseconds(since: start) / 1_000_000, change.speaker))
                }
            }
        }

        var sequence: [String?] { changes.map(\.speaker) }
    }

    @Test func aLoneSpeakerBecomesDominantAfter300ms() {
        var script = Script()
        script.run(200, ["a": 30, "b": 127])
        #expect(script.changes.isEmpty)
        // The first step only starts the clock: 300 ms of lead at 400 ms.
        script.run(200, ["a": 30, "b": 127])
        #expect(script.changes.count == 1)
        #expect(script.changes.first?.speaker == "a")
        #expect(script.changes.first?.ms == 400)
    }

    @Test func theThresholdIs50dBov() {
        var script = Script()
        script.run(2000, ["a": 51])
        #expect(script.changes.isEmpty)
        script.run(500, ["a": 50])
        #expect(script.sequence == ["a"])
    }

    @Test func aLouderSpeakerTakesOverAQuieterOneAfter300msMore() {
        var script = Script()
        script.run(2000, ["quiet": 40, "loud": 127])
        #expect(script.sequence == ["quiet"])
        let joined = script.now.nanoseconds(since: script.start) / 1_000_000
        // Both speak; the loud one gains 100 ms a step.
        script.run(1000, ["quiet": 40, "loud": 20])
        #expect(script.sequence == ["quiet", "loud"])
        #expect(script.changes.last!.ms == joined + 300)
        // The quiet one alone again: the loud one spoke last, holds 1 s, then
        // the quiet one has had 300 ms more.
        script.run(2000, ["quiet": 40, "loud": 127])
        #expect(script.sequence == ["quiet", "loud", "quiet"])
    }

    @Test func equallyLoudSpeakersDoNotTakeTurnsWhileBothSpeak() {
        var script = Script()
        script.run(1000, ["a": 30])
        script.run(3000, ["a": 30, "b": 30])
        #expect(script.sequence == ["a"])
    }

    @Test func theDominantSpeakerHoldsAtLeastOneSecond() {
        var script = Script()
        script.run(600, ["a": 30, "b": 127])
        #expect(script.sequence == ["a"])
        let since = script.changes[0].ms
        // b louder at once: 300 ms of lead come at since + 300, but a holds.
        script.run(2000, ["a": 127, "b": 20])
        #expect(script.sequence == ["a", "b"])
        #expect(script.changes[1].ms == since + 1000)
    }

    @Test func nobodyAfterTwoSecondsOfSilence() {
        var script = Script()
        script.run(1000, ["a": 30])
        let lastSpeech = script.now.nanoseconds(since: script.start) / 1_000_000
        script.run(1900, ["a": 127])
        #expect(script.sequence == ["a"])
        script.run(100, ["a": 127])
        #expect(script.sequence == ["a", nil])
        #expect(script.changes.last!.ms == lastSpeech + 2000)
        // Speech again: a new dominant speaker after 300 ms.
        script.run(500, ["a": 30])
        #expect(script.sequence == ["a", nil, "a"])
    }

    @Test func aPublisherWithoutPacketsIsSilent() {
        var script = Script()
        script.run(1000, ["a": 30])
        script.run(2000, ["a": nil])
        #expect(script.sequence == ["a", nil])
    }

    @Test func anOldShortUtteranceFades() {
        var script = Script()
        script.run(300, ["a": 30])  // 200 ms of lead (the first step starts the clock)
        script.run(1000, ["a": 127])
        script.run(200, ["a": 30])  // 200 ms again: not 300 in a row
        #expect(script.changes.isEmpty)
    }
}
