import AdminAPI
import Foundation
import Logging
import Persistence
import Rooms

/// Takes the room events that are not notices to participants and does the
/// I/O they call for, away from the `RoomHost`: history records (rooms,
/// participants, current publications) go to the SQLite store, status callbacks to the webhook outbox. The host's sink
/// only enqueues here, so a slow disk never holds up a room.
final class RoomEventRecorder: Sendable {
    private let continuation: AsyncStream<[RoomEvent]>.Continuation
    private let events: AsyncStream<[RoomEvent]>
    let history: HistoryStore
    let webhooks: WebhookOutbox
    let messageSubscriptions: MessageSubscriptions
    private let logger: Logger

    init(history: HistoryStore, webhooks: WebhookOutbox, messageSubscriptions: MessageSubscriptions, logger: Logger) {
        // 100k batches: minutes of a busy node's events if the disk stalls;
        // past that the oldest are kept and new ones dropped (and logged).
        (events, continuation) = AsyncStream.makeStream(of: [RoomEvent].self, bufferingPolicy: .bufferingOldest(100_000))
        self.history = history
        self.webhooks = webhooks
        self.messageSubscriptions = messageSubscriptions
        self.logger = logger
    }

    /// The `RoomHost`'s event sink.
    func enqueue(_ batch: [RoomEvent]) {
        if case .dropped = continuation.yield(batch) {
            logger.error("room event queue full: \(batch.count) events not recorded")
        }
    }

    /// Runs until `finish()`.
    func run() async {
        for await batch in events {
            for event in batch {
                do {
                    try await record(event)
                } catch {
                    logger.error("recording \(event) failed: \(error)")
                }
            }
        }
    }

    func finish() {
        continuation.finish()
    }

    private func record(_ event: RoomEvent) async throws {
        switch event {
        case .roomRecord(let room):
            try await history.save(room: Persistence.RoomRecord(room))
        case .participantRecord(let participant):
            try await history.save(participant: Persistence.ParticipantRecord(participant))
        case .publishedTrackRecord(let track):
            try await history.save(track: Persistence.PublishedTrackRecord(track))
        case .publishedTrackRemoved(_, _, let track):
            _ = try await history.removeTrack(sid: track.rawValue)
        case .statusCallback(let callback):
            let event = WebhookEvent(
                kind: callback.event, roomSid: callback.roomSID.rawValue, roomName: callback.roomName,
                roomStatus: Persistence.RoomRecord.Status(callback.roomStatus), roomDuration: callback.roomDuration,
                participantSid: callback.participantSID?.rawValue, participantIdentity: callback.participantIdentity,
                participantStatus: callback.participantStatus.map(Persistence.ParticipantRecord.Status.init),
                participantDuration: callback.participantDuration, trackSid: callback.trackSID?.rawValue,
                trackName: callback.trackName, trackKind: callback.trackKind.flatMap { PublishedTrackRecord.Kind(rawValue: $0.rawValue) },
                timestamp: callback.timestamp)
            webhooks.enqueue(event, to: callback.url, method: callback.method == .get ? .get : .post)
        case .messageSent(let message):
            // A participant's own messages go to its MessageSubscriptions
            // callbacks; server messages (no sender) have no subscriber.
            guard let sender = message.from else { return }
            for url in await messageSubscriptions.callbacks(for: sender.rawValue) {
                webhooks.enqueue(
                    MessageCallback(
                        contentType: message.contentType, content: message.content,
                        sequenceNumber: message.sequenceNumber, participantSid: sender.rawValue,
                        roomSid: message.roomSID.rawValue, timestamp: message.timestamp, sid: message.sid.rawValue),
                    to: url)
            }
        case .participantRemoved(_, let participant, _):
            await messageSubscriptions.remove(participant: participant.rawValue)
        default:
            break  // media-plane events: the media issue consumes them
        }
    }
}

extension Persistence.RoomRecord.Status {
    init(_ status: RoomStatus) {
        switch status {
        case .inProgress: self = .inProgress
        case .completed: self = .completed
        case .failed: self = .failed
        }
    }
}

extension Persistence.ParticipantRecord.Status {
    init(_ status: ParticipantStatus) {
        switch status {
        case .connected: self = .connected
        case .reconnecting: self = .reconnecting
        case .disconnected: self = .disconnected
        }
    }
}

extension Persistence.RoomRecord {
    init(_ room: Rooms.RoomRecord) {
        self.init(
            sid: room.sid.rawValue, uniqueName: room.uniqueName, status: Status(room.status),
            maxParticipants: room.maxParticipants, emptyRoomTimeout: room.emptyRoomTimeoutMinutes,
            unusedRoomTimeout: room.unusedRoomTimeoutMinutes, statusCallback: room.statusCallback,
            statusCallbackMethod: room.statusCallbackMethod.rawValue, dateCreated: room.dateCreated,
            dateUpdated: room.dateUpdated, endTime: room.endTime, duration: room.duration)
    }
}

extension Persistence.ParticipantRecord {
    init(_ participant: Rooms.ParticipantRecord) {
        self.init(
            sid: participant.sid.rawValue, roomSid: participant.roomSID.rawValue, identity: participant.identity,
            status: Status(participant.status), dateCreated: participant.dateCreated,
            dateUpdated: participant.dateUpdated, startTime: participant.startTime, endTime: participant.endTime,
            duration: participant.duration)
    }
}

extension Persistence.PublishedTrackRecord {
    /// History keeps the effective `enabled` (publisher's flag and no
    /// interruption), the value REST shows for a live room.
    init(_ track: Rooms.PublishedTrackRecord) {
        self.init(
            sid: track.sid.rawValue, participantSid: track.participantSID.rawValue, roomSid: track.roomSID.rawValue,
            name: track.name, kind: Kind(rawValue: track.kind.rawValue) ?? .data, enabled: track.enabled,
            dateCreated: track.dateCreated, dateUpdated: track.dateUpdated)
    }
}
