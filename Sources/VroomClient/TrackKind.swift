import Packets
import SDP

/// Audio or video: `Packets.MediaKind`, the one type for what a track
/// carries, under the name the SDK's API has always used.
public typealias TrackKind = Packets.MediaKind

extension TrackKind {
    /// The `SDP` module's kind of the m-line.
    var sdpKind: SDP.MediaKind { self == .audio ? .audio : .video }

    /// nil for an m-line that is neither audio nor video (`application`, ...).
    init?(_ kind: SDP.MediaKind) {
        switch kind {
        case .audio: self = .audio
        case .video: self = .video
        default: return nil
        }
    }
}
