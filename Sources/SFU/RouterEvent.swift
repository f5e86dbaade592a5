/// What the router tells the control plane about layers, drained with
/// `Router.takeEvents()` after a batch of packets or a `tick`.
public enum RouterEvent: Equatable, Hashable, Sendable {
    /// A subscribed video track stopped getting any layer (PROTOCOL.md 7).
    case switchedOff(track: TrackID, subscriber: TransportID, reason: SwitchOffReason)
    /// It gets a layer again.
    case switchedOn(track: TrackID, subscriber: TransportID)
    /// The layers of a simulcast track that some subscriber is forwarded
    /// (or about to be), by RID, lowest first: the publisher may pause the
    /// others (`publisherLayers`). Sent when the set changes.
    case publisherLayers(track: TrackID, active: [String])
}
