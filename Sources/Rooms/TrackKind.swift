/// The media kind of a published track.
public enum TrackKind: String, Hashable, Sendable, CaseIterable {
    case audio
    case video
}

/// What an interruption affects (PROTOCOL.md section 3.3): `camera` pauses the
/// participant's video tracks, `audio` its audio tracks and the remote audio
/// forwarded to it.
public enum InterruptionKind: String, Hashable, Sendable, CaseIterable {
    case camera
    case audio

    /// The kind of the participant's own tracks it disables.
    public var trackKind: TrackKind {
        switch self {
        case .camera: .video
        case .audio: .audio
        }
    }
}

/// Whether an interruption begins or ends.
public enum InterruptionState: String, Hashable, Sendable, CaseIterable {
    case began
    case ended
}

/// Why a track's forwarding state changed, when it was not the publisher's
/// own `setTrackEnabled`: sent as `"reason":"interrupted"`.
public enum TrackStateReason: String, Hashable, Sendable {
    case interrupted
}
