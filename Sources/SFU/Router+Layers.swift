import Packets

/// Per-subscriber layer controls (PROTOCOL.md section 7). Commands, not the
/// per-packet path: they may allocate. A change takes effect at the next
/// keyframe of the layer it selects (the router asks for one).
extension Router {
    /// Caps the layers `subscriber` gets of `track` at the smallest one at
    /// least this large (`setContentPreferences`); nil clears the cap.
    public func setRenderDimensions(
        track: TrackID, subscriber: TransportID, width: Int?, height: Int?, now: MediaTime
    ) throws(RouterError) {
        // ISSUE-12-STUB: the SFU work fills this in.
        _ = try downTrack(track: track, subscriber: subscriber)
    }

    /// Switches `track` off (or back on) for `subscriber` by its own
    /// request (`switchOffTrack` / `switchOnTrack`, reason
    /// `disabled-by-subscriber`).
    public func setSwitchedOffBySubscriber(
        track: TrackID, subscriber: TransportID, _ off: Bool, now: MediaTime
    ) throws(RouterError) {
        // ISSUE-12-STUB
        _ = try downTrack(track: track, subscriber: subscriber)
    }

    /// The publisher's priority for its track.
    public func setPublisherPriority(track: TrackID, _ priority: TrackPriority) throws(RouterError) {
        // ISSUE-12-STUB
        guard receivers[track] != nil else { throw .unknownTrack(track) }
    }

    /// A subscriber's own priority for a track (`setTrackPriority`); nil
    /// goes back to the publisher's.
    public func setSubscriberPriority(
        track: TrackID, subscriber: TransportID, _ priority: TrackPriority?
    ) throws(RouterError) {
        // ISSUE-12-STUB
        _ = try downTrack(track: track, subscriber: subscriber)
    }

    /// The layer events since the last call, oldest first.
    public func takeEvents() -> [RouterEvent] {
        // ISSUE-12-STUB
        []
    }

    func downTrack(track: TrackID, subscriber: TransportID) throws(RouterError) -> DownTrack {
        guard receivers[track] != nil else { throw .unknownTrack(track) }
        guard let downTrack = subscribers[subscriber]?.downTracks.first(where: { $0.track == track }) else {
            throw .unknownTransport(subscriber)
        }
        return downTrack
    }
}
