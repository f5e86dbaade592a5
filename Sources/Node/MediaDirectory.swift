import MediaIO
import Rooms

/// The media plane's integer handles for this node's rooms, participants
/// and tracks, and the SIDs they stand for (DESIGN.md: "MediaIO speaks in
/// integer handles that Node maps to SIDs"). Handles are never reused while
/// the process lives: a late event of a participant that is gone finds no
/// SID and is dropped, never misdelivered.
struct MediaDirectory: Sendable {
    private var rooms = HandleMap<RoomSID, RoomHandle>()
    private var participants = HandleMap<ParticipantSID, ParticipantHandle>()
    private var tracks = HandleMap<TrackSID, TrackHandle>()
    /// Each participant with a handle: its room, and the tracks it publishes.
    private var members: [ParticipantSID: (room: RoomSID, tracks: Set<TrackSID>)] = [:]

    /// The handles of `participant` in `room`, made on first use.
    mutating func handles(participant: ParticipantSID, room: RoomSID) -> (ParticipantHandle, RoomHandle) {
        let roomHandle = rooms.handle(for: room, make: RoomHandle.init(rawValue:))
        let handle = participants.handle(for: participant, make: ParticipantHandle.init(rawValue:))
        if members[participant] == nil { members[participant] = (room, []) }
        return (handle, roomHandle)
    }

    func participantHandle(_ participant: ParticipantSID) -> ParticipantHandle? {
        participants.handle(of: participant)
    }

    func roomHandle(_ room: RoomSID) -> RoomHandle? { rooms.handle(of: room) }
    func trackHandle(_ track: TrackSID) -> TrackHandle? { tracks.handle(of: track) }
    func room(_ handle: RoomHandle) -> RoomSID? { rooms.sid(of: handle) }
    func participant(_ handle: ParticipantHandle) -> ParticipantSID? { participants.sid(of: handle) }
    func track(_ handle: TrackHandle) -> TrackSID? { tracks.sid(of: handle) }
    /// Who published `track` (nil once it is unpublished).
    func publisher(of track: TrackSID) -> ParticipantSID? {
        members.first { $0.value.tracks.contains(track) }?.key
    }

    /// `publisher` publishes exactly `current` now: handles for new tracks,
    /// none any more for the ones that went.
    mutating func setPublished(_ current: [TrackSID], by publisher: ParticipantSID) -> [TrackSID: TrackHandle] {
        let kept = Set(current)
        for gone in (members[publisher]?.tracks ?? []).subtracting(kept) { tracks.remove(gone) }
        members[publisher]?.tracks = kept
        return Dictionary(uniqueKeysWithValues: current.map { ($0, tracks.handle(for: $0, make: TrackHandle.init(rawValue:))) })
    }

    /// The handle of a track offered to a subscriber, made on first use: the
    /// subscriber's offer may be built before the publisher's answer is
    /// applied (the room announces the track first), and the media plane
    /// then waits for the track's receiver. Kept with the publisher's tracks,
    /// so it goes when the publisher does.
    mutating func subscribedTrackHandle(_ track: TrackSID, publisher: ParticipantSID, room: RoomSID) -> TrackHandle {
        if members[publisher] == nil { members[publisher] = (room, []) }
        members[publisher]?.tracks.insert(track)
        return tracks.handle(for: track, make: TrackHandle.init(rawValue:))
    }

    /// One track is unpublished: its handle, which is then forgotten.
    mutating func removeTrack(_ track: TrackSID, of publisher: ParticipantSID) -> TrackHandle? {
        members[publisher]?.tracks.remove(track)
        return tracks.remove(track)
    }

    /// The participant is gone for good: its handle, and its room's when
    /// nobody else in it has media on this node.
    mutating func removeParticipant(_ participant: ParticipantSID) -> ParticipantHandle? {
        guard let member = members.removeValue(forKey: participant) else { return participants.remove(participant) }
        for track in member.tracks { tracks.remove(track) }
        if !members.values.contains(where: { $0.room == member.room }) { rooms.remove(member.room) }
        return participants.remove(participant)
    }

    /// How many entries the directory holds (a bound for tests: it shrinks
    /// back when participants leave).
    var count: Int { rooms.count + participants.count + tracks.count + members.count }
}

/// SIDs to integer handles and back, numbered from 1 in order of first use.
struct HandleMap<SID: Hashable & Sendable, Handle: Hashable & Sendable>: Sendable {
    private var handles: [SID: Handle] = [:]
    private var sids: [Handle: SID] = [:]
    private var next: UInt32 = 1

    mutating func handle(for sid: SID, make: (UInt32) -> Handle) -> Handle {
        if let existing = handles[sid] { return existing }
        let handle = make(next)
        next &+= 1
        handles[sid] = handle
        sids[handle] = sid
        return handle
    }

    func handle(of sid: SID) -> Handle? { handles[sid] }
    func sid(of handle: Handle) -> SID? { sids[handle] }

    @discardableResult
    mutating func remove(_ sid: SID) -> Handle? {
        guard let handle = handles.removeValue(forKey: sid) else { return nil }
        sids[handle] = nil
        return handle
    }

    var count: Int { handles.count }
}
