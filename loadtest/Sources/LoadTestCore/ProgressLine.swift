import Foundation

/// The live status line on stderr: phase, joins, received bitrate and loss.
public struct ProgressLine: Sendable, Equatable {
    public enum Phase: String, Sendable {
        case ramping = "ramp", settling = "settle", measuring = "measure", finishing = "finish"
    }

    public var elapsedSeconds: Double
    public var phase: Phase
    public var planned: Int
    public var joined: Int
    public var failed: Int
    public var disconnected: Int
    /// All receivers together, since the previous line.
    public var receivedBitsPerSecond: Double
    /// Cumulative, all receivers.
    public var lossFraction: Double?

    public init(
        elapsedSeconds: Double, phase: Phase, planned: Int, joined: Int, failed: Int, disconnected: Int,
        receivedBitsPerSecond: Double, lossFraction: Double?
    ) {
        self.elapsedSeconds = elapsedSeconds
        self.phase = phase
        self.planned = planned
        self.joined = joined
        self.failed = failed
        self.disconnected = disconnected
        self.receivedBitsPerSecond = receivedBitsPerSecond
        self.lossFraction = lossFraction
    }

    /// e.g. `[  12.0 s measure] joined 16/16 failed 0 dropped 0 | rx 4.81 Mbit/s | loss 0.00%`
    public var text: String {
        let loss = lossFraction.map { String(format: "%.2f%%", $0 * 100) } ?? "-"
        let clock = String(format: "%6.1f", elapsedSeconds)
        let rate = String(format: "%.2f", receivedBitsPerSecond / 1_000_000)
        return "[\(clock) s \(phase.rawValue)] joined \(joined)/\(planned) failed \(failed) dropped \(disconnected) | rx \(rate) Mbit/s | loss \(loss)"
    }
}
