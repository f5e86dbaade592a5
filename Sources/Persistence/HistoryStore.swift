import Foundation
import Rooms

/// Where room, participant and publication history lives (PROTOCOL.md
/// sections 6 and 8): REST reads it, and the room owner writes its record
/// events to it. Two stores keep it: ``SQLiteHistoryStore`` for one node
/// alone (the embedded default), and ``PostgresHistoryStore`` for a cluster
/// of nodes sharing one PostgreSQL database. Both pass the same test suite
/// (`Tests/PersistenceTests/HistoryStoreTests.swift`).
///
/// The contract both keep:
/// - Records are Rooms' own types, stored as they are; saves are upserts by SID.
/// - ``record(_:completion:)`` only enqueues and returns at once (the room
///   owner calls it on its own actor); batches are written in order, one
///   transaction each.
/// - Every read first waits for the writes enqueued before it
///   (``caughtUp()``), so a REST read right after a room operation sees it.
/// - Lists are newest first for rooms and oldest first for participants,
///   ties broken by insertion order, with Twilio's paging (``Page``).
public protocol HistoryStore: Sendable {
    /// Enqueues the history records among `events` (`roomRecord`,
    /// `participantRecord`, `publishedTrackRecord`, `publishedTrackRemoved`;
    /// the rest is not history) and returns at once. They are written in
    /// order, one transaction per call; `completion` gets nil once written
    /// (at once when there is no record among them), or the error that made
    /// the store give the batch up. Returns false,
    /// writing nothing, when too many batches already wait.
    @discardableResult
    func record(_ events: [RoomEvent], completion: @escaping @Sendable ((any Error)?) -> Void) -> Bool

    /// Waits until every batch enqueued before this call is written.
    func caughtUp() async throws

    /// Inserts the room, or replaces every field of the stored one with the same SID.
    func save(room: RoomRecord) async throws
    /// Inserts the participant, or replaces every field of the stored one with the same SID.
    func save(participant: ParticipantRecord) async throws
    /// Inserts the publication, or replaces every field of the stored one with the same SID.
    func save(track: PublishedTrackRecord) async throws
    /// Forgets an unpublished track (Twilio's PublishedTracks lists current
    /// publications only). Returns whether one was removed.
    @discardableResult
    func removeTrack(sid: TrackSID) async throws -> Bool

    /// The room with this SID, in any status.
    func room(sid: String) async throws -> RoomRecord?
    /// The room a unique name addresses: the in-progress one, else the most
    /// recently created ended one (`completed` or `failed`).
    func latestRoom(uniqueName: String) async throws -> RoomRecord?
    /// Rooms newest first (by `date_created`, then by insertion).
    /// `createdAfter` is inclusive and `createdBefore` exclusive, as
    /// Twilio's `DateCreatedAfter` and `DateCreatedBefore`. `page` counts
    /// from 0; `pageSize` is clamped to 1...1000. A page past the end is empty.
    func roomPage(
        status: RoomStatus?, uniqueName: String?, createdAfter: Date?, createdBefore: Date?, page: Int, pageSize: Int
    ) async throws -> Page<RoomRecord>
    /// A room's participants in the order they joined (oldest first).
    func participantPage(
        roomSID: RoomSID, status: ParticipantStatus?, identity: String?, createdAfter: Date?, createdBefore: Date?,
        page: Int, pageSize: Int
    ) async throws -> Page<ParticipantRecord>
    /// The participant `{ParticipantSid}` addresses in a room: the one with
    /// this SID, else by identity its current session (connected or
    /// reconnecting), else its most recent one.
    func participant(roomSID: RoomSID, sidOrIdentity: String) async throws -> ParticipantRecord?
    /// A participant's publications in the order they were published.
    func tracks(participantSID: ParticipantSID) async throws -> [PublishedTrackRecord]
    /// One publication by SID.
    func track(sid: TrackSID) async throws -> PublishedTrackRecord?
}

extension HistoryStore {
    @discardableResult
    public func record(_ events: [RoomEvent]) -> Bool {
        record(events) { _ in }
    }

    /// Rooms with Twilio's defaults for the filters not given.
    public func rooms(
        status: RoomStatus? = nil, uniqueName: String? = nil, createdAfter: Date? = nil, createdBefore: Date? = nil,
        page: Int = 0, pageSize: Int = Page<RoomRecord>.defaultPageSize
    ) async throws -> Page<RoomRecord> {
        try await roomPage(
            status: status, uniqueName: uniqueName, createdAfter: createdAfter, createdBefore: createdBefore,
            page: page, pageSize: pageSize)
    }

    /// A room's participants with Twilio's defaults for the filters not given.
    public func participants(
        roomSID: RoomSID, status: ParticipantStatus? = nil, identity: String? = nil, createdAfter: Date? = nil,
        createdBefore: Date? = nil, page: Int = 0, pageSize: Int = Page<ParticipantRecord>.defaultPageSize
    ) async throws -> Page<ParticipantRecord> {
        try await participantPage(
            roomSID: roomSID, status: status, identity: identity, createdAfter: createdAfter,
            createdBefore: createdBefore, page: page, pageSize: pageSize)
    }

    /// Page and size as both stores clamp them: page from 0, size 1...1000.
    static func clamp(page: Int, pageSize: Int) -> (page: Int, pageSize: Int) {
        (max(0, page), min(max(1, pageSize), Page<RoomRecord>.maxPageSize))
    }
}
