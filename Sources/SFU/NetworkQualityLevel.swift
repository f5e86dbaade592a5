/// The level table of PROTOCOL.md 3.8 (README, "Network quality"): 5 is
/// best, 0 means nothing arrived from the participant for 5 s (longer when
/// its packets are sparse: `NetworkQualityMonitor.silenceTimeout`). A level
/// needs both its MOS and its loss: loss has its own column because the
/// E-model forgives loss on Opus (PLC, FEC) that video does not.
///
/// | level | MOS    | loss  |
/// |-------|--------|-------|
/// | 5     | >= 4.2 | < 1%  |
/// | 4     | >= 4.0 | < 2%  |
/// | 3     | >= 3.6 | < 5%  |
/// | 2     | >= 3.1 | < 10% |
/// | 1     | media flows, anything worse |
/// | 0     | nothing from the participant for 5 s (`NetworkQualityMonitor.silenceTimeout`) |
public enum NetworkQualityLevel {
    /// The rows for levels 5 down to 2: minimum MOS, loss fraction below.
    public static let rows: [(level: Int, minimumMOS: Double, lossBelow: Double)] = [
        (5, 4.2, 0.01),
        (4, 4.0, 0.02),
        (3, 3.6, 0.05),
        (2, 3.1, 0.10),
    ]

    /// The level (1-5) for a MOS and a loss fraction while media flows.
    public static func level(mos: Double, lossFraction: Double) -> Int {
        for row in rows where mos >= row.minimumMOS && lossFraction < row.lossBelow {
            return row.level
        }
        return 1
    }
}
