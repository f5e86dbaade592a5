/// A track the server offers on the subscriber connection: the m-line's
/// mid and whose track it is (from the `subscribeOffer` message's track list).
struct RemoteMediaTrack: Hashable, Sendable {
    var mid: String
    var trackSid: String
    var participantSid: String
    var kind: TrackKind
}
