import MediaIO
import Rooms

// The media plane's value types that the layers asking Node (Signaling,
// AdminAPI) read but may not import (DESIGN.md: they never import MediaIO
import Rooms
// or the SFU). One type each, MediaIO's, under a name of Node's.

/// The media workers' counters (for `/metrics`).
public typealias MediaCounters = MediaStatistics

/// How many participants are at each network quality level (for `/metrics`).
public typealias QualityCensus = NetworkQualityCensus

/// A participant's network quality as last rated (for `/Stats`).
public typealias QualityFigures = ParticipantQuality

/// A room's live media figures by SID (for `GET /v1/Rooms/{RoomSid}/Stats`):
/// the media plane's own type, keyed by the rooms' SIDs.
public typealias RoomMediaFigures = RoomMediaStatistics<ParticipantSID, TrackSID>

/// One participant's media figures, by SID.
public typealias ParticipantMediaFigures = ParticipantMediaStatistics<ParticipantSID, TrackSID>

/// One published track as the server receives it, by SID.
public typealias PublishedTrackFigures = PublishedTrackStatistics<TrackSID>

/// One track as the server sends it to a subscriber, by SID.
public typealias SubscribedTrackFigures = SubscribedTrackStatistics<ParticipantSID, TrackSID>
