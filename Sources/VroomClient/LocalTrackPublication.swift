/// One of this participant's tracks as the room knows it: the server's SID
/// for it.
public struct LocalTrackPublication: Sendable, Equatable {
    public var trackSid: String
    public var trackName: String
    public var kind: TrackKind
}
