import Packets

/// A control command the router cannot carry out. These are the worker's
/// bookkeeping mistakes (an unknown or duplicate ID), so they all map to
/// 53401 ServerLocalDescFailed: the server could not set up its side
/// (PROTOCOL.md section 4).
public enum RouterError: Error, Equatable, Sendable {
    case unknownTransport(TransportID)
    case unknownTrack(TrackID)
    case duplicateTransport(TransportID)
    case duplicateTrack(TrackID)
    case duplicateDownTrack(TrackID, TransportID)
    /// An SSRC already routed on that connection.
    case ssrcInUse(SSRC)

    /// The protocol error code (PROTOCOL.md section 4).
    public var code: Int { 53401 }
}
