/// The publish offer to send in a `publish` message: the SDP and which
/// local track each m-line carries (PROTOCOL.md 3.2's track list).
struct PublishOfferDescription: Sendable {
    /// One m-line's track. Removed tracks are not listed: their m-lines
    /// stay in `sdp`, inactive.
    struct Track: Hashable, Sendable {
        var mid: String
        var name: String
        var kind: TrackKind
        var enabled: Bool
    }

    var sdp: String
    var tracks: [Track]
}
