import Foundation
import LoadTestCore

/// Keeps the join tally and writes the live `ProgressLine` to stderr once a
/// second: rewritten in place on a terminal, a new line every 5 s otherwise
/// (a log file should not fill with carriage returns).
actor ProgressReporter {
    private let enabled: Bool
    private let planned: Int
    private let start: ContinuousClock.Instant
    private let isTerminal = isatty(STDERR_FILENO) != 0
    private var phase = ProgressLine.Phase.ramping
    private var joined = 0
    private var failed = 0
    private var lastBytes = 0
    private var lastSample: ContinuousClock.Instant?
    private var lastLine: ContinuousClock.Instant?
    private var wroteInPlace = false

    init(enabled: Bool, planned: Int, start: ContinuousClock.Instant) {
        self.enabled = enabled
        self.planned = planned
        self.start = start
    }

    func setPhase(_ phase: ProgressLine.Phase) { self.phase = phase }

    func joinFinished(_ record: JoinRecord) {
        if record.joinMilliseconds != nil { joined += 1 } else { failed += 1 }
    }

    func joinFailed(_ participant: LoadParticipant) { failed += 1 }

    /// Polls every participant's counters once a second until cancelled.
    nonisolated func run(participants: [LoadParticipant]) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            if Task.isCancelled { break }
            var bytes = 0
            var received = 0
            var lost = 0
            var dropped = 0
            for participant in participants {
                if await participant.record.disconnect != nil { dropped += 1 }
                guard let snapshot = await participant.snapshot() else { continue }
                for track in snapshot.received {
                    bytes += track.bytesReceived
                    received += track.packetsReceived
                    lost += max(0, track.packetsLost)
                }
            }
            await emit(bytes: bytes, received: received, lost: lost, dropped: dropped)
        }
    }

    private func emit(bytes: Int, received: Int, lost: Int, dropped: Int) {
        let now = ContinuousClock.now
        var rate = 0.0
        if let last = lastSample {
            let dt = LoadRunner.seconds(now - last)
            if dt > 0 { rate = Double(max(0, bytes - lastBytes)) * 8 / dt }
        }
        lastBytes = bytes
        lastSample = now
        guard enabled else { return }
        let line = ProgressLine(
            elapsedSeconds: LoadRunner.seconds(now - start), phase: phase, planned: planned, joined: joined, failed: failed,
            disconnected: dropped, receivedBitsPerSecond: rate,
            lossFraction: received + lost > 0 ? Double(lost) / Double(received + lost) : nil)
        if isTerminal {
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + line.text).utf8))
            wroteInPlace = true
        } else if lastLine.map({ LoadRunner.seconds(now - $0) >= 5 }) ?? true {
            FileHandle.standardError.write(Data((line.text + "\n").utf8))
            lastLine = now
        }
    }

    /// Ends the in-place line so the report starts on a fresh one.
    func finish() {
        if wroteInPlace { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
