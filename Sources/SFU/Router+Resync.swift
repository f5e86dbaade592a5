
extension Router {
    /// A subscriber connection just became able to receive (DTLS-SRTP up):
    /// what was forwarded to it before went nowhere (the sink had no slot),
    /// so every DownTrack starts over at the next keyframe, which is asked
    /// for at once. Without this a late-connecting subscriber waits for its
    /// own PLI timer (about a second in Chrome) or for aiortc's next
    /// keyframe, 3000 frames away (INTEROP.md).
    public func subscriberConnected(transport: TransportID) {
        guard let session = subscribers[transport] else { return }
        for downTrack in session.downTracks {
            downTrack.munger.requestResync()
            if downTrack.receiver.kind == .video && downTrack.receiver.isForwarding { wantKeyframe(downTrack.source) }
        }
    }
}
