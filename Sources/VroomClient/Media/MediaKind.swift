import SDP

/// What a track carries. The client SDK's own type (the `SDP` module's
/// `MediaKind` also names `application` and others, which a track never is);
/// inside this module it shadows `SDP.MediaKind`, spelled out where both meet.
enum MediaKind: Hashable, Sendable {
    case audio
    case video

    /// The `SDP` module's kind of the m-line.
    var sdpKind: SDP.MediaKind { self == .audio ? .audio : .video }

    /// nil for an m-line that is neither audio nor video.
    init?(_ kind: SDP.MediaKind) {
        switch kind {
        case .audio: self = .audio
        case .video: self = .video
        default: return nil
        }
    }
}
