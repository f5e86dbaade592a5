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
final class RoomEventRecorder: Sendable {
    private let continuation: AsyncStream<[RoomEvent]>.Continuation
    private let events: AsyncStream<[RoomEvent]>
    let history: any HistoryStore
    let webhooks: any CallbackOutbox
    let messageSubscriptions: any MessageSubscriptionList
    private let logger: Logger

    init(history: any HistoryStore, webhooks: any CallbackOutbox, messageSubscriptions: any MessageSubscriptionList, logger: Logger) {
        // 100k batches: minutes of a busy node's events if delivery stalls;
        // past that the oldest are kept and new ones dropped (and logged).
        (events, continuation) = AsyncStream.makeStream(of: [RoomEvent].self, bufferingPolicy: .bufferingOldest(100_000))
        self.history = history
        self.webhooks = webhooks
        self.messageSubscriptions = messageSubscriptions
        self.logger = logger
    }

    /// The `RoomHost`'s event sink.
    func enqueue(_ batch: [RoomEvent]) {
        let logger = logger
        let accepted = history.record(batch) { error in
            if let error { logger.error("recording room history failed: \(error)") }
        }
        if !accepted {
            logger.error("history queue full: records of \(batch.count) events not written")
        }
        // Status callbacks go to the outbox at once (it never waits), so
        // a slow subscription read below never holds them up.
        for case .statusCallback(let callback) in batch {
            webhooks.enqueue(callback.webhookEvent, to: callback.url, method: callback.method == .get ? .get : .post)
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
    /// to the outbox at once, history records to the store and media
    /// events to the media plane.
    var needsSubscriptions: Bool {
        switch self {
        case .messageSent, .participantRemoved: true
        default: false
        }
    }
}

extension StatusCallback {
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
