import AsyncHTTPClient
import Foundation
import Logging
import Persistence
import Rooms
import Synchronization

/// The cluster's outbox (PROTOCOL.md section 8): status callbacks and
/// message callbacks live in the shared PostgreSQL (`webhook_outbox`, see
/// ``PostgresWebhookStore``) until a receiver answers 2xx, so a callback
/// queued by a node that dies is delivered by another. At least once, in
/// order per (room, callback URL); `SequenceNumber` (per room, counted in
/// the database) lets receivers drop repeats.
///
/// - `enqueue` is synchronous and `nonisolated`, as ``WebhookOutbox``'s:
///   the row is written in order by the store's write queue, and signed
///   there once its `SequenceNumber` is known.
/// - Every node runs a delivery loop: it leases the oldest row of queues
///   that are due (never a row behind another of its queue), makes one
///   attempt per row, deletes the row on 2xx and otherwise reschedules it
///   after ``WebhookOutbox/Configuration``'s backoff, giving it up (counted
///   failed, logged) once it is `giveUpAge` old. A lease lasts one request
///   timeout plus ``Options/leaseMargin``: a dead node's rows are taken
///   over when it expires.
/// - ``record(_:statusCallbacks:in:completion:)`` writes status callbacks
///   in the history's transaction instead, with the records they report.
/// - The loop wakes when a row was written here or an attempt ended, and
///   at least every ``Options/pollInterval`` (rows written by other nodes,
///   retries falling due).
public actor DatabaseWebhookOutbox: CallbackOutbox {
    public struct Options: Sendable {
        /// Longest sleep of the delivery loop.
        public var pollInterval: Duration
        /// Rows this node delivers at once.
        public var maxInFlight: Int
        /// Added to the request timeout for a lease's length.
        public var leaseMargin: Duration

        public init(pollInterval: Duration = .milliseconds(250), maxInFlight: Int = 64, leaseMargin: Duration = .seconds(10)) {
            self.pollInterval = pollInterval
            self.maxInFlight = maxInFlight
            self.leaseMargin = leaseMargin
        }
    }

    private let configuration: WebhookOutbox.Configuration
    private let options: Options
    private let sender: WebhookSender
    private let store: PostgresWebhookStore
    private let logger: Logger
    private let clock = ContinuousClock()

    /// Written rows and finished attempts wake the loop through this.
    private let wakeups: AsyncStream<Void>.Continuation
    /// Refused because the store's write queue was full or shut down.
    private let refused = Atomic<Int>(0)
    /// Status callbacks handed to the history's write queue and not yet written.
    private let withRecords = Atomic<Int>(0)
    /// Set by shutdown: later callbacks are refused (counted failed).
    private let closed = Atomic<Bool>(false)
    /// The loop and the task forwarding wakeups, started by `init`. A Mutex
    /// because `init` cannot set an actor property once `self` escaped.
    private let tasks = Mutex<[Task<Void, Never>]>([])

    private var attempts: [Int64: Task<Void, Never>] = [:]
    private var sleeper: CheckedContinuation<Void, Never>?
    private var woken = false
    private var failed = 0
    private var delivered = 0
    /// Rows this node enqueued still in the table, as last counted.
    private var storedPending = 0
    private var isShutDown = false

    /// - Parameters:
    ///   - nodeID: this node (`enqueued_by`, `leased_by`).
    ///   - httpClient: a client to share; without one the outbox makes its own.
    public init(
        configuration: WebhookOutbox.Configuration, database: PostgresDatabase, nodeID: String,
        options: Options = Options(), httpClient: HTTPClient? = nil, logger: Logger = Logger(label: "vroom.webhooks")
    ) {
        self.configuration = configuration
        self.options = options
        self.logger = logger
        sender = WebhookSender(configuration: configuration, httpClient: httpClient)
        let (signals, wakeups) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.wakeups = wakeups
        store = PostgresWebhookStore(database: database, nodeID: nodeID) { error in
            if let error { logger.error("webhook outbox: a callback could not be written: \(error)") }
            wakeups.yield()
        }
        let forwarding = Task { [self] in
            for await _ in signals { await self.wake() }
        }
        let loop = Task { [self] in await self.run() }
        tasks.withLock { $0 = [forwarding, loop] }
    }

    // MARK: - Enqueueing (never waits)

    public nonisolated func enqueue(_ event: WebhookEvent, to url: String, method: WebhookOutbox.Method = .post) {
        hand(entry(event, to: url, method: method))
    }

    /// The row of a status callback, signed once its `SequenceNumber` is known.
    private nonisolated func entry(_ event: WebhookEvent, to url: String, method: WebhookOutbox.Method) -> PostgresWebhookStore.OutboxEntry {
        let secret = configuration.apiSecret
        return PostgresWebhookStore.OutboxEntry(
            roomSID: event.roomSid, queueURL: url, numbered: true, endsNumbering: event.kind == .roomEnded
        ) { number in
            WebhookSender.signed(event, sequenceNumber: number ?? 0, url: url, method: method, secret: secret)
        }
    }

    /// A status callback to write with the records it reports.
    public struct StatusCallbackWrite: Sendable {
        public var event: WebhookEvent
        public var url: String
        public var method: WebhookOutbox.Method

        public init(_ event: WebhookEvent, to url: String, method: WebhookOutbox.Method = .post) {
            self.event = event
            self.url = url
            self.method = method
        }
    }

    /// Writes the history records among `events` and these status
    /// callbacks in one transaction of `history`'s write queue (which must
    /// be on this outbox's database): a node that dies leaves both or
    /// neither. Never waits. When the queue is full nothing is written and
    /// the callbacks count as refused; after ``shutdown(gracePeriod:)`` the
    /// records are written and the callbacks refused.
    @discardableResult
    public nonisolated func record(
        _ events: [RoomEvent], statusCallbacks: [StatusCallbackWrite], in history: PostgresHistoryStore,
        completion: @escaping @Sendable ((any Error)?) -> Void
    ) -> Bool {
        var entries = statusCallbacks.map { entry($0.event, to: $0.url, method: $0.method) }
        if !entries.isEmpty, closed.load(ordering: .acquiring) {
            refused.add(entries.count, ordering: .relaxed)
            logger.warning("webhook outbox shut down: \(entries.count) callback(s) dropped")
            entries = []
        }
        let count = entries.count
        withRecords.add(count, ordering: .relaxed)
        let accepted = history.record(events, callbacks: entries, for: store) { [self] error in
            withRecords.subtract(count, ordering: .relaxed)
            if error != nil { refused.add(count, ordering: .relaxed) }
            if count > 0 { wakeups.yield() }
            completion(error)
        }
        if !accepted {
            withRecords.subtract(count, ordering: .relaxed)
            refused.add(count, ordering: .relaxed)
        }
        return accepted
    }

    public nonisolated func enqueue(_ message: MessageCallback, to url: String) {
        let secret = configuration.apiSecret
        hand(PostgresWebhookStore.OutboxEntry(roomSID: message.roomSid, queueURL: url, numbered: false, endsNumbering: false) { _ in
            WebhookSender.signed(message, url: url, secret: secret)
        })
    }

    private nonisolated func hand(_ entry: PostgresWebhookStore.OutboxEntry) {
        if closed.load(ordering: .acquiring) || !store.enqueue(entry) {
            refused.add(1, ordering: .relaxed)
            logger.warning("webhook outbox full, callback dropped", metadata: ["room": "\(entry.roomSID)", "url": "\(entry.queueURL)"])
        }
    }

    // MARK: - Counters

    /// Callbacks this node queued that are not written yet (here or with
    /// their records), plus its rows still in the table (as the loop last
    /// counted them, at most 1 s ago).
    public var pendingCount: Int { store.unwritten + withRecords.load(ordering: .relaxed) + storedPending }

    /// Callbacks this node gave up or refused.
    public var failedCount: Int { failed + refused.load(ordering: .relaxed) }

    /// Callbacks this node delivered (any node's rows).
    public var deliveredCount: Int { delivered }

    /// Waits until every callback queued so far is in the database (or
    /// `limit` passed): a drained node's last callbacks of a room go in
    /// before the room's new owner numbers on after them.
    public nonisolated func written(within limit: Duration) async {
        await store.caughtUp(within: limit)
    }

    // MARK: - Running

    /// Stops taking callbacks, waits up to `gracePeriod` for the queued
    /// ones to be written and for attempts under way, then gives back its
    /// leases: what is left stays in the table for the other nodes (or this
    /// node's next start), nothing is counted failed.
    public func shutdown(gracePeriod: Duration = .seconds(5)) async {
        guard !isShutDown else { return }
        isShutDown = true
        closed.store(true, ordering: .releasing)
        let deadline = clock.now + gracePeriod
        let store = store
        let writing = Task { await store.finish() }
        await store.caughtUp(within: gracePeriod)
        if store.unwritten > 0 {
            logger.warning("webhook outbox: \(store.unwritten) callback(s) not written at shutdown")
        }
        writing.cancel()
        for task in tasks.withLock({ $0 }) { task.cancel() }
        wakeups.finish()
        wake()
        while !attempts.isEmpty, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        for attempt in attempts.values { attempt.cancel() }
        for task in tasks.withLock({ $0 }) { await task.value }
        try? await store.releaseLeases()
        await sender.shutdown()
    }

    private func run() async {
        var counted = clock.now - .seconds(10)
        let leaseLength = configuration.requestTimeout + options.leaseMargin
        while !Task.isCancelled, !isShutDown {
            let room = options.maxInFlight - attempts.count
            if room > 0 {
                do {
                    for row in try await store.lease(limit: room, length: leaseLength) where attempts[row.id] == nil {
                        attempts[row.id] = Task { await self.attempt(row) }
                    }
                } catch {
                    logger.debug("webhook outbox: lease failed: \(error)")
                }
            }
            if clock.now - counted >= .seconds(1) {
                counted = clock.now
                if let count = try? await store.pendingRows() { storedPending = count }
            }
            await nap(options.pollInterval)
        }
    }

    /// One attempt at a leased row, then the row is deleted (2xx),
    /// rescheduled or given up.
    private func attempt(_ row: PostgresWebhookStore.LeasedRow) async {
        defer {
            attempts[row.id] = nil
            wake()
        }
        let outcome = await sender.send(row.request, timeout: sender.attemptTimeout(age: row.age))
        if Task.isCancelled { return }  // shutdown: the lease is given back
        do {
            if case .success = outcome {
                try await store.delivered(id: row.id)
                delivered += 1
                return
            }
            let gaveUp = try await store.failed(
                id: row.id, retryAfter: sender.retryDelay(afterFailures: row.attempts + 1), giveUpAge: configuration.giveUpAge)
            if gaveUp {
                failed += 1
                logger.warning(
                    "webhook given up",
                    metadata: ["url": "\(row.queueURL)", "attempts": "\(row.attempts + 1)", "last": "\(outcome)"])
            } else {
                logger.debug(
                    "webhook attempt failed",
                    metadata: ["url": "\(row.queueURL)", "attempt": "\(row.attempts + 1)", "error": "\(outcome)"])
            }
        } catch {
            // The lease expires and the row is tried again (after a 2xx: a repeat).
            logger.warning("webhook outbox: recording an attempt failed: \(error)")
        }
    }

    /// Sleeps up to `duration`, or until ``wake()``.
    private func nap(_ duration: Duration) async {
        if woken {
            woken = false
            return
        }
        let timer = Task { [self] in
            try? await Task.sleep(for: duration)
            self.wake()
        }
        await withCheckedContinuation { sleeper = $0 }
        timer.cancel()
    }

    private func wake() {
        if let sleeper {
            self.sleeper = nil
            woken = false
            sleeper.resume()
        } else {
            woken = true
        }
    }
}
