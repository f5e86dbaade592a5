/// `a=msid:<stream id> [<track id>]` (RFC 8830). Chromium writes
/// `a=msid:<stream uuid> <track uuid>`, `-` as the stream id for a track
/// outside any stream.
public struct SDPMediaStreamID: Equatable, Hashable, Sendable {
    public var streamID: String
    public var trackID: String?

    public init(streamID: String, trackID: String?) {
        self.streamID = streamID
        self.trackID = trackID
    }

    init(parsing value: Substring) throws(SDPError) {
        if let (stream, track) = value.sdpSplitOnce(0x20) {
            self.init(streamID: String(stream), trackID: String(track))
        } else {
            self.init(streamID: String(value), trackID: nil)
        }
        guard !streamID.isEmpty else { throw SDPError(line: 0, "bad msid attribute: empty stream id") }
    }

    /// The text after `a=msid:`.
    public var value: String { trackID.map { "\(streamID) \($0)" } ?? streamID }
}
