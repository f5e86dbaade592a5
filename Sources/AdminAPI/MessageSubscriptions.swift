import Foundation
import Logging
import Persistence

/// Where `POST …/MessageSubscriptions` are kept: in memory
/// (``MessageSubscriptions``, one node) or in the cluster's database
/// (``DatabaseMessageSubscriptions``). At most
/// ``MessageSubscriptions/maxPerParticipant`` URLs per participant.
public protocol MessageSubscriptionList: Sendable {
    /// Adds `callback` for the participant (`PA…`); a URL already there is
    /// not added twice. False when the participant already has the maximum.
    func subscribe(participant: String, callback: String) async throws -> Bool
    /// Where this participant's messages go, in subscription order.
    func callbacks(for participant: String) async -> [String]
    /// The participant's session is over: forget its subscriptions.
    func remove(participant: String) async
}

/// The `Callback` URLs subscribed to participants' messages through
/// `POST …/MessageSubscriptions` (PROTOCOL.md section 6). The server's event
/// recorder asks it, per sent message, where to POST the `MessageCallback`;
/// a participant's subscriptions end with its session.
public actor MessageSubscriptions: MessageSubscriptionList {
    private var callbacks: [String: [String]] = [:]
    /// 10 URLs per participant: a subscription is one webhook delivery per
    /// message, so this bounds the fan-out of one 10-per-minute sender to
    /// 100 POSTs a minute.
    public static let maxPerParticipant = 10

    public init() {}

    /// Adds `callback` for the participant (`PA…`); a URL already there is
    /// not added twice. False when the participant already has the maximum.
    @discardableResult
    public func subscribe(participant: String, callback: String) -> Bool {
        var list = callbacks[participant, default: []]
        if list.contains(callback) { return true }
        guard list.count < Self.maxPerParticipant else { return false }
        list.append(callback)
        callbacks[participant] = list
        return true
    }

    /// Where this participant's messages go, in subscription order.
    public func callbacks(for participant: String) -> [String] {
        callbacks[participant] ?? []
    }

    /// The participant's session is over: forget its subscriptions.
    public func remove(participant: String) {
        callbacks[participant] = nil
    }
}

/// Message subscriptions in the cluster's PostgreSQL, so the node that owns
/// a participant's room finds those made through any node. A read that
/// fails (the database is away) finds none and is logged: the message
/// itself still reaches the room.
public struct DatabaseMessageSubscriptions: MessageSubscriptionList {
    private let table: PostgresMessageSubscriptionTable
    private let logger: Logger

    public init(database: PostgresDatabase, logger: Logger = Logger(label: "vroom.webhooks")) {
        table = PostgresMessageSubscriptionTable(database: database)
        self.logger = logger
    }

    public func subscribe(participant: String, callback: String) async throws -> Bool {
        try await table.subscribe(participant: participant, callback: callback, limit: MessageSubscriptions.maxPerParticipant)
    }

    public func callbacks(for participant: String) async -> [String] {
        do {
            return try await table.callbacks(participant: participant)
        } catch {
            logger.error("message subscriptions of \(participant) could not be read: \(error)")
            return []
        }
    }

    public func remove(participant: String) async {
        do {
            try await table.remove(participant: participant)
        } catch {
            logger.error("message subscriptions of \(participant) could not be removed: \(error)")
        }
    }
}
