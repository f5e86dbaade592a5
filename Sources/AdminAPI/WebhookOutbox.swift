import AsyncHTTPClient
import Foundation
import Logging
import Persistence
import Synchronization

/// Delivers status callbacks and message callbacks (PROTOCOL.md section 6)
/// in order per room, retrying with exponential backoff, without ever
/// making the caller wait.
///
/// - `enqueue` is synchronous and `nonisolated`: it signs the request and
///   hands it to an `AsyncStream`, so a room actor, a REST handler or any
///   other code calls it without `await` and without blocking, and events
///   from one caller keep their order.
/// - One queue per (room, callback URL): the next event of a queue waits
///   until the previous one was delivered (2xx) or given up. Every receiver
///   thus sees a room's events in order; a dead URL of one room (or of one
///   message subscription) never delays any other queue.
/// - A failed attempt (connection refused, timeout, non-2xx) is retried
///   after `initialDelay`, doubling up to `maxDelay`, until the event is
///   `giveUpAge` old (5 min 30 s by default: PROTOCOL.md asks for at least
///   5 minutes); then it is given up, logged and counted in ``failedCount``.
/// - Memory is bounded: a queue holds at most `maxQueuedPerRoom` events and
///   the hand-off stream `maxInbox`; what does not fit is counted as failed.
///
/// `SequenceNumber` counts from 0 per room in enqueue order (on from where
/// it was before a restart, for the rooms given to `init`). A room's
/// counter is dropped when its `room-ended` is enqueued, so `room-ended`
/// must be the room's last status callback.
public actor WebhookOutbox: CallbackOutbox {
    /// Timing and bounds. Tests shorten the delays.
    public struct Configuration: Sendable {
        /// Key of the `X-Vroom-Signature` HMAC.
        public var apiSecret: String
        /// Wait after the first failure; doubles after each one.
        public var initialDelay: Duration
        /// Longest wait between two attempts.
        public var maxDelay: Duration
        /// An event this old after a failure is given up (counted failed).
        public var giveUpAge: Duration
        /// Connect + response head, and the longest pause while reading.
        public var requestTimeout: Duration
        /// Events waiting in one queue before new ones are refused.
        public var maxQueuedPerRoom: Int
        /// Events handed to the outbox but not yet sorted into queues.
        public var maxInbox: Int

        public init(
            apiSecret: String,
            initialDelay: Duration = .seconds(1),
            maxDelay: Duration = .seconds(60),
            giveUpAge: Duration = .seconds(330),
            requestTimeout: Duration = .seconds(15),
            // 1,000 events is a 50-person room's joins, publications and
            // leaves (about 8 events each) with 2x margin.
            maxQueuedPerRoom: Int = 1_000,
            maxInbox: Int = 10_000
        ) {
            self.apiSecret = apiSecret
            self.initialDelay = initialDelay
            self.maxDelay = maxDelay
            self.giveUpAge = giveUpAge
            self.requestTimeout = requestTimeout
            self.maxQueuedPerRoom = maxQueuedPerRoom
            self.maxInbox = maxInbox
        }
    }

    /// `StatusCallbackMethod`: POST (Twilio's default) or GET.
    public enum Method: String, Sendable, Hashable {
        case post = "POST"
        case get = "GET"

        /// Reads a room's `status_callback_method`; anything but GET is POST.
        public init(_ text: String?) {
            self = text?.uppercased() == "GET" ? .get : .post
        }
    }

    /// One signed request, built when it is enqueued.
    struct Delivery: Sendable {
        enum Payload: Sendable {
            case event(WebhookEvent)
            case message(MessageCallback)
        }

        var payload: Payload
        var url: String
        var method: Method
        var enqueuedAt: ContinuousClock.Instant
        /// The room's `SequenceNumber`, given when the event is sorted into its queue.
        var sequenceNumber = 0
    }

    /// A queue's identity: the room and the receiving URL.
    struct QueueKey: Hashable, Sendable {
        var roomSid: String
        var url: String
    }

    private struct Queue {
        var items: [Delivery] = []
        var worker: Task<Void, Never>?
    }

    private let configuration: Configuration
    private let sender: WebhookSender
    private let logger: Logger
    private let clock = ContinuousClock()

    private let inbox: AsyncStream<Delivery>
    private let inboxContinuation: AsyncStream<Delivery>.Continuation
    /// Handed to the stream, not yet taken out (for ``pendingCount``).
    private let inboxCount = Atomic<Int>(0)
    /// Refused because the hand-off stream was full or closed.
    private let refusedAtInbox = Atomic<Int>(0)
    /// The task sorting the inbox into queues, started by `init`. A Mutex
    /// because `init` cannot set an actor property once `self` escaped
    /// into that task.
    private let inboxReader = Mutex<Task<Void, Never>?>(nil)

    private var queues: [QueueKey: Queue] = [:]
    private var sequenceNumbers: [String: Int] = [:]
    private var failed = 0
    private var delivered = 0
    private var isShutDown = false

    /// - Parameters:
    ///   - httpClient: a client to share; without one the outbox makes its
    ///     own (no redirects followed, timeouts from `configuration`) and
    ///     shuts it down in ``shutdown(gracePeriod:)``.
    ///   - sequenceNumbers: each room's next `SequenceNumber` (by room SID)
    ///     for rooms whose callbacks began before a restart.
    public init(
        configuration: Configuration, httpClient: HTTPClient? = nil, sequenceNumbers: [String: Int] = [:],
        logger: Logger = Logger(label: "vroom.webhooks")
    ) {
        self.configuration = configuration
        self.sequenceNumbers = sequenceNumbers
        self.logger = logger
        sender = WebhookSender(configuration: configuration, httpClient: httpClient)
        (inbox, inboxContinuation) = AsyncStream.makeStream(of: Delivery.self, bufferingPolicy: .unbounded)
        let inbox = self.inbox
        let reader = Task { [self] in
            for await delivery in inbox {
                await self.accept(delivery)
            }
        }
        inboxReader.withLock { $0 = reader }
    }

    // MARK: - Enqueueing (never waits)

    /// Queues a status callback for `url` (a room's `StatusCallback`).
    /// Returns at once; the event gets the room's next `SequenceNumber`.
    public nonisolated func enqueue(_ event: WebhookEvent, to url: String, method: Method = .post) {
        hand(Delivery(payload: .event(event), url: url, method: method, enqueuedAt: ContinuousClock.now))
    }

    /// Queues a participant message for a message subscription's
    /// `Callback` (always a JSON POST). Returns at once.
    public nonisolated func enqueue(_ message: MessageCallback, to url: String) {
        hand(Delivery(payload: .message(message), url: url, method: .post, enqueuedAt: ContinuousClock.now))
    }

    private nonisolated func hand(_ delivery: Delivery) {
        // The stream itself is unbounded; this count bounds it, because a
        // `.bufferingOldest` stream would drop silently without telling
        // which event (and we want every drop counted).
        let before = inboxCount.add(1, ordering: .relaxed).oldValue
        guard before < configuration.maxInbox else {
            inboxCount.subtract(1, ordering: .relaxed)
            refusedAtInbox.add(1, ordering: .relaxed)
            return
        }
        if case .terminated = inboxContinuation.yield(delivery) {
            inboxCount.subtract(1, ordering: .relaxed)
            refusedAtInbox.add(1, ordering: .relaxed)
        }
    }

    // MARK: - Counters

    /// Events accepted and neither delivered nor given up yet (the
    /// `vroom_webhooks_pending` gauge).
    public var pendingCount: Int {
        inboxCount.load(ordering: .relaxed) + queues.values.reduce(0) { $0 + $1.items.count }
    }

    /// Events given up after `giveUpAge`, refused because a queue or the
    /// inbox was full, or dropped by shutdown (`vroom_webhooks_failed_total`).
    public var failedCount: Int {
        failed + refusedAtInbox.load(ordering: .relaxed)
    }

    /// Events a receiver answered with 2xx.
    public var deliveredCount: Int { delivered }

    // MARK: - Running

    /// Stops taking events, gives the queues up to `gracePeriod` to drain,
    /// then cancels what is left (counted failed: the outbox lives in
    /// memory, PROTOCOL.md promises delivery only while the process lives)
    /// and shuts down its own HTTP client.
    public func shutdown(gracePeriod: Duration = .seconds(5)) async {
        guard !isShutDown else { return }
        isShutDown = true
        inboxContinuation.finish()
        await inboxReader.withLock { $0 }?.value
        let deadline = clock.now + gracePeriod
        while !queues.isEmpty, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        for queue in queues.values {
            queue.worker?.cancel()
        }
        for queue in queues.values {
            await queue.worker?.value
        }
        await sender.shutdown()
    }

    private func accept(_ delivery: Delivery) {
        inboxCount.subtract(1, ordering: .relaxed)
        var delivery = delivery
        let roomSid: String
        switch delivery.payload {
        case .event(let event):
            roomSid = event.roomSid
        case .message(let message):
            roomSid = message.roomSid
        }
        let key = QueueKey(roomSid: roomSid, url: delivery.url)
        var queue = queues[key] ?? Queue()
        guard queue.items.count < configuration.maxQueuedPerRoom else {
            failed += 1
            logger.warning("webhook queue full, event dropped", metadata: ["room": "\(roomSid)", "url": "\(delivery.url)"])
            return
        }
        if case .event(let event) = delivery.payload {
            // Numbered here, in stream order, so numbers follow enqueue order.
            let number = sequenceNumbers[roomSid, default: 0]
            sequenceNumbers[roomSid] = event.kind == .roomEnded ? nil : number + 1
            delivery.sequenceNumber = number
        }
        queue.items.append(delivery)
        if queue.worker == nil {
            queue.worker = Task { await self.drain(key) }
        }
        queues[key] = queue
    }

    /// Delivers a queue's events one after the other, then removes the
    /// queue. Runs as one task per non-empty queue.
    private func drain(_ key: QueueKey) async {
        while let delivery = queues[key]?.items.first {
            let ok = await deliverWithRetries(delivery)
            if ok { delivered += 1 } else { failed += 1 }
            queues[key]?.items.removeFirst()
        }
        queues[key] = nil
    }

    private func deliverWithRetries(_ delivery: Delivery) async -> Bool {
        var attempt = 0
        let request = Self.request(for: delivery, secret: configuration.apiSecret)
        while true {
            // Shutdown cancelled the queue: what is left is not attempted
            // (a hanging URL would otherwise hold shutdown for a timeout each).
            if Task.isCancelled { return false }
            attempt += 1
            let outcome = await sender.send(request, timeout: sender.attemptTimeout(age: clock.now - delivery.enqueuedAt))
            if case .success = outcome { return true }
            let age = clock.now - delivery.enqueuedAt
            if age >= configuration.giveUpAge || Task.isCancelled {
                logger.warning(
                    "webhook given up",
                    metadata: ["url": "\(delivery.url)", "attempts": "\(attempt)", "last": "\(outcome)"])
                return false
            }
            logger.debug("webhook attempt failed", metadata: ["url": "\(delivery.url)", "attempt": "\(attempt)", "error": "\(outcome)"])
            // The last wait ends exactly at giveUpAge, so the final attempt
            // happens when the event is giveUpAge old.
            try? await Task.sleep(for: min(sender.retryDelay(afterFailures: attempt), configuration.giveUpAge - age))
        }
    }

    /// The signed HTTP request for a delivery.
    static func request(for delivery: Delivery, secret: String) -> SignedWebhookRequest {
        switch delivery.payload {
        case .event(let event):
            WebhookSender.signed(event, sequenceNumber: delivery.sequenceNumber, url: delivery.url, method: delivery.method, secret: secret)
        case .message(let message):
            WebhookSender.signed(message, url: delivery.url, secret: secret)
        }
    }
}
