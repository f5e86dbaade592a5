import MediaIO
import Rooms

/// A media-plane event in the rooms' SIDs, for the sessions it concerns.
public enum RoomMediaEvent: Sendable, Hashable {
    /// A participant's publisher or subscriber connection is up (ICE and DTLS-SRTP).
    case connected(participant: ParticipantSID, connection: MediaEvent.Connection)
    /// A participant's publisher or subscriber connection failed (53405, 53407).
    case failed(participant: ParticipantSID, connection: MediaEvent.Connection, code: Int, message: String)
    /// A participant's network quality changed: for everyone in the room.
    case networkQuality(room: RoomSID, participant: ParticipantSID, level: Int, warnings: [NetworkQualityWarning])
    /// The room's dominant speaker changed; nil: nobody speaks.
    case dominantSpeaker(room: RoomSID, participant: ParticipantSID?)
    /// A video track `subscriber` receives is switched off, or on again (PROTOCOL.md 7).
    case trackSwitchedOff(subscriber: ParticipantSID, track: TrackSID, reason: TrackSwitchOffReason)
    case trackSwitchedOn(subscriber: ParticipantSID, track: TrackSID)
    /// The layers of `track` some subscriber needs, for its publisher.
    case publisherLayers(publisher: ParticipantSID, track: TrackSID, active: [String])
}
