/// What the media plane tells the control plane about a participant or a
/// room, in the handles `Node` gave it.
public enum MediaEvent: Sendable, Hashable {
    /// Which of a participant's two PeerConnections.
    public enum Connection: String, Sendable, Hashable {
        case publisher
        case subscriber
    }

    /// ICE selected an address and DTLS-SRTP is up.
    case connected(participant: ParticipantHandle, connection: Connection)
    /// The connection failed: ICE consent expired (53405) or DTLS failed or
    /// the certificate did not match the SDP fingerprint (53407).
    case failed(participant: ParticipantHandle, connection: Connection, code: Int, message: String)
    /// A participant's network quality changed (PROTOCOL.md 3.8): for
    /// everyone in `room`. At most one a second per participant.
    case networkQuality(room: RoomHandle, participant: ParticipantHandle, level: Int, warnings: [MediaQualityWarning])
    /// The room's dominant speaker changed; nil: nobody speaks (2 s of silence).
    case dominantSpeaker(room: RoomHandle, participant: ParticipantHandle?)
    /// A video track `subscriber` receives gets no layer any more
    /// (PROTOCOL.md 7, "Switch-off").
    case trackSwitchedOff(room: RoomHandle, subscriber: ParticipantHandle, track: TrackHandle, reason: MediaSwitchOffReason)
    /// It gets a layer again.
    case trackSwitchedOn(room: RoomHandle, subscriber: ParticipantHandle, track: TrackHandle)
    /// The simulcast layers of `track` that some subscriber needs, by RID,
    /// lowest first: for its publisher (`publisherLayers`).
    case publisherLayers(room: RoomHandle, track: TrackHandle, active: [String])
}
