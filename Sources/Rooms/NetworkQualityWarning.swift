/// A network quality warning (PROTOCOL.md 3.8), with its wire name.
public enum NetworkQualityWarning: String, Hashable, Sendable, CaseIterable {
    case highJitter = "high-jitter"
    case highRTT = "high-rtt"
    case highPacketLoss = "high-packet-loss"
    case lowMOS = "low-mos"
}
