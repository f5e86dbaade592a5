/// The `<media>` field of an `m=` line (RFC 8866 section 5.14).
public enum MediaKind: Equatable, Hashable, Sendable, CustomStringConvertible {
    case audio
    case video
    /// Data channels: `m=application 9 UDP/DTLS/SCTP webrtc-datachannel`.
    case application
    /// Any other media type (`text`, `message`, ...), kept as written.
    case other(String)

    public init(_ text: String) {
        switch text {
        case "audio": self = .audio
        case "video": self = .video
        case "application": self = .application
        default: self = .other(text)
        }
    }

    public var description: String {
        switch self {
        case .audio: "audio"
        case .video: "video"
        case .application: "application"
        case .other(let text): text
        }
    }
}
