/// A video track's priority in the server's bandwidth allocation
/// (PROTOCOL.md section 7, Twilio's `Track.Priority`): its publisher sets
/// it (`LocalTrackPublicationOptions`), a subscriber may override it for
/// itself (`RemoteVideoTrack.priority`). The raw values are the protocol's.
///
/// The server's `SFU.TrackPriority` is the same concept; the SDK does not
/// depend on the SFU module, so it keeps its own (the wire text is the contract).
public enum TrackPriority: String, Sendable, Hashable, CaseIterable, Codable {
    case low
    case standard
    case high
}
