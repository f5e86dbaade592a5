/// What a paced packet is, which decides the order the `Pacer` sends in:
/// the lower the raw value, the sooner. Audio first (a few kbit/s whose
/// delay listeners hear at once), then retransmissions (a receiver is
/// already waiting for them, holding a frame back), then new video, then
/// padding and bandwidth probes (worth something only when the link has
/// room left).
public enum PacingClass: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case audio = 0
    case retransmission = 1
    case video = 2
    case padding = 3

    public var description: String {
        switch self {
        case .audio: "audio"
        case .retransmission: "retransmission"
        case .video: "video"
        case .padding: "padding"
        }
    }
}
