/// The media kind of a published track, `"audio"` or `"video"` on the wire
/// (PROTOCOL.md section 3; Vroom has no data tracks).
public enum TrackKind: String, Hashable, Sendable, CaseIterable, Codable {
    case audio
    case video

    public init(from decoder: any Decoder) throws {
        self = try decodeNamingTheAcceptedValues(from: decoder)
    }
}

/// What an interruption affects (PROTOCOL.md section 3.3): `camera` pauses the
/// participant's video tracks, `audio` its audio tracks and the remote audio
/// forwarded to it.
public enum InterruptionKind: String, Hashable, Sendable, CaseIterable, Decodable {
    /// Disables the participant's video tracks.
    case camera
    /// Disables its audio tracks and pauses the audio forwarded to it.
    case audio

    public init(from decoder: any Decoder) throws {
        self = try decodeNamingTheAcceptedValues(from: decoder)
    }

    /// The kind of the participant's own tracks it disables.
    public var trackKind: TrackKind {
        switch self {
        case .camera: .video
        case .audio: .audio
        }
    }
}

/// Whether an interruption begins or ends.
public enum InterruptionState: String, Hashable, Sendable, CaseIterable, Decodable {
    case began
    case ended

    public init(from decoder: any Decoder) throws {
        self = try decodeNamingTheAcceptedValues(from: decoder)
    }
}

/// Why a track's forwarding state changed, when it was not the publisher's
/// own `setTrackEnabled`: sent as `"reason":"interrupted"`.
public enum TrackStateReason: String, Hashable, Sendable {
    case interrupted
}

/// A wire enum that names the accepted values when refusing one (`"data"`:
/// `must be one of "audio", "video"`), so a 53003 or a REST 400 tells the
/// client author what the field must be.
private func decodeNamingTheAcceptedValues<Value: RawRepresentable & CaseIterable>(from decoder: any Decoder) throws -> Value
where Value.RawValue == String {
    let container = try decoder.singleValueContainer()
    guard let value = Value(rawValue: try container.decode(String.self)) else {
        let accepted = Value.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "must be one of \(accepted)")
    }
    return value
}
