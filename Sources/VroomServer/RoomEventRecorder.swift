import AdminAPI
import Foundation
import Logging
import Persistence
import Rooms

/// Takes the room events that are not notices to participants and does the
/// I/O they call for, away from the `RoomHost`: history records (rooms,
/// participants, current publications) go to the store, status callbacks to
/// the webhook outbox, and sent messages, in one loop, to their sender's
/// message subscriptions. The host's sink only enqueues here, so a slow
/// disk or database never holds up a room, nor a slow subscription read
/// the status callbacks. Records are handed to the store at once, in
/// order (it queues them itself), so a REST read that follows a room
/// operation finds its records: the room service keeps only what is live.
/// In a cluster a batch's status callbacks are written in the same
/// transaction as its records, so a node that dies leaves both or neither;
/// on one node they go to the outbox once their records are written.
final class RoomEventRecorder: Sendable {
    /// Where a batch's status callbacks are written.
    private enum CallbackWrites: Sendable {
        /// Apart from the records, once they are written: one node alone
        /// (SQLite, the outbox in memory).
        case apart
        /// With the records, in one transaction: a cluster (both in PostgreSQL).
        case withRecords(PostgresHistoryStore, DatabaseWebhookOutbox)
    }

    private let continuation: AsyncStream<[RoomEvent]>.Continuation
    private let events: AsyncStream<[RoomEvent]>
    let history: any HistoryStore
    let webhooks: any CallbackOutbox
    let messageSubscriptions: any MessageSubscriptionList
    private let callbackWrites: CallbackWrites
    private let logger: Logger

    init(history: any HistoryStore, webhooks: any CallbackOutbox, messageSubscriptions: any MessageSubscriptionList, logger: Logger) {
        // 100k batches: minutes of a busy node's events if delivery stalls;
        // past that the oldest are kept and new ones dropped (and logged).
        (events, continuation) = AsyncStream.makeStream(of: [RoomEvent].self, bufferingPolicy: .bufferingOldest(100_000))
        self.history = history
        self.webhooks = webhooks
        self.messageSubscriptions = messageSubscriptions
        callbackWrites =
            if let postgres = history as? PostgresHistoryStore, let outbox = webhooks as? DatabaseWebhookOutbox {
                .withRecords(postgres, outbox)
            } else {
                .apart
            }
        self.logger = logger
    }

    /// The `RoomHost`'s event sink.
    func enqueue(_ batch: [RoomEvent]) {
        let logger = logger
        let written: @Sendable ((any Error)?) -> Void = { error in
            if let error { logger.error("recording room history failed: \(error)") }
        }
        // Status callbacks never wait for the loop below, so a slow
        // subscription read never holds them up.
        let callbacks = batch.compactMap { event in
            if case .statusCallback(let callback) = event { callback } else { nil }
        }
        switch callbackWrites {
        case .withRecords(let postgres, let outbox):
            let writes = callbacks.map { DatabaseWebhookOutbox.StatusCallbackWrite($0.webhookEvent, to: $0.url, method: $0.outboxMethod) }
            if !outbox.record(batch, statusCallbacks: writes, in: postgres, completion: written) {
                logger.error("history queue full: records of \(batch.count) events and \(callbacks.count) callback(s) not written")
            }
        case .apart:
            // Handed to the outbox once their records (and the rooms' next
            // `SequenceNumber`) are on disk, in batch order: a restart numbers
            // on after every callback that may have gone out. A batch the
            // store refuses or rolls back loses its callbacks with its
            // records, as in a cluster: sent, they would overtake the
            // batches still queued, or repeat numbers after a restart.
            let webhooks = webhooks
            let recorded: @Sendable ((any Error)?) -> Void = { error in
                if let error {
                    logger.error("recording room history failed: \(error); \(callbacks.count) callback(s) not sent")
                    return
                }
                for callback in callbacks {
                    webhooks.enqueue(callback.webhookEvent, to: callback.url, method: callback.outboxMethod)
                }
            }
            if !history.record(batch, completion: recorded) {
                logger.error("history queue full: records of \(batch.count) events and \(callbacks.count) callback(s) not written")
            }
        }
        let rest = batch.filter(\.needsSubscriptions)
        guard !rest.isEmpty else { return }
        if case .dropped = continuation.yield(rest) {
            logger.error("room event queue full: \(rest.count) events not delivered")
        }
    }

    /// Runs until `finish()`.
    func run() async {
        for await batch in events {
            for event in batch {
                await deliver(event)
            }
        }
    }

    func finish() {
        continuation.finish()
    }

    /// Waits until the status callbacks queued so far are in the database
    /// (or `limit` passed): a drained node's last callbacks of a room go in
    /// before the room's new owner numbers on after them. One node alone:
    /// until they are in the outbox, which gets them once their records are
    /// written.
    func callbacksWritten(within limit: Duration) async {
        switch callbackWrites {
        case .withRecords(let postgres, let outbox):
            await postgres.caughtUp(within: limit)
            await outbox.written(within: limit)
        case .apart:
            // Bounded all the same: a stalled disk must not hold the stop.
            let history = history
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await history.caughtUp() }
                group.addTask { try? await Task.sleep(for: limit) }
                await group.next()
                group.cancelAll()
            }
        }
    }

    private func deliver(_ event: RoomEvent) async {
        switch event {
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
            break
        }
    }
}

extension RoomEvent {
    /// Handled by the recorder's loop, which reads or changes message
    /// subscriptions (in the database, in a cluster); status callbacks go
    /// with their history records (written with them in a cluster, to the
    /// outbox once written on one node), media events to the media plane.
    var needsSubscriptions: Bool {
        switch self {
        case .messageSent, .participantRemoved: true
        default: false
        }
    }
}

extension StatusCallback {
    var outboxMethod: WebhookOutbox.Method { method == .get ? .get : .post }

    /// The outbox's form of it (AdminAPI's, with Twilio's parameter names).
    var webhookEvent: WebhookEvent {
        WebhookEvent(
            kind: event, roomSid: roomSID.rawValue, roomName: roomName,
            roomStatus: roomStatus, roomDuration: roomDuration,
            participantSid: participantSID?.rawValue, participantIdentity: participantIdentity,
            participantStatus: participantStatus, participantDuration: participantDuration,
            trackSid: trackSID?.rawValue, trackName: trackName, trackKind: trackKind,
            timestamp: timestamp)
    }
}
