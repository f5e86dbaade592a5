/// The media kind of a published track, `"audio"` or `"video"` on the wire
/// (PROTOCOL.md section 3; Vroom has no data tracks).
public enum TrackKind: String, Hashable, Sendable, CaseIterable, Codable {
    case audio
    case video

    /// Names the accepted values when refusing one (`"data"`), so a 53003
    /// or REST 400 says what the field must be.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let kind = TrackKind(rawValue: try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "must be one of \"audio\", \"video\"")
        }
        self = kind
    }
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
