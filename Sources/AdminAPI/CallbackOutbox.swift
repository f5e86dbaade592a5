import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Persistence

/// Where status callbacks and message callbacks (PROTOCOL.md section 6) are
/// queued for delivery: ``WebhookOutbox`` in memory (one node), or
/// ``DatabaseWebhookOutbox`` in the cluster's PostgreSQL (several nodes).
/// Both deliver in order per (room, callback URL), number a room's status
/// callbacks from 0 (`SequenceNumber`), retry with the same backoff
/// (``WebhookOutbox/Configuration``) and sign and send through one
/// ``WebhookSender``. `enqueue` never waits.
public protocol CallbackOutbox: Sendable {
    /// Queues a status callback for `url`; returns at once.
    func enqueue(_ event: WebhookEvent, to url: String, method: WebhookOutbox.Method)
    /// Queues a message callback (a JSON POST); returns at once.
    func enqueue(_ message: MessageCallback, to url: String)
    /// Callbacks accepted and neither delivered nor given up (`vroom_webhooks_pending`).
    var pendingCount: Int { get async }
    /// Callbacks given up or refused (`vroom_webhooks_failed_total`).
    var failedCount: Int { get async }
    /// Callbacks a receiver answered with 2xx (on this node).
    var deliveredCount: Int { get async }
    /// Stops taking callbacks, gives delivery up to `gracePeriod`, stops.
    func shutdown(gracePeriod: Duration) async
}

/// Signs callbacks and makes one delivery attempt: the part both outboxes
/// share. `Sendable`: immutable; `HTTPClient` is `Sendable`.
struct WebhookSender: Sendable {
    let configuration: WebhookOutbox.Configuration
    let client: HTTPClient
    private let ownsClient: Bool

    /// Without a client to share, makes one (no redirects followed,
    /// timeouts from `configuration`), shut down by ``shutdown()``.
    init(configuration: WebhookOutbox.Configuration, httpClient: HTTPClient?) {
        self.configuration = configuration
        if let httpClient {
            client = httpClient
            ownsClient = false
        } else {
            let timeout = Self.timeAmount(configuration.requestTimeout)
            var clientConfiguration = HTTPClient.Configuration(
                redirectConfiguration: .disallow,
                timeout: .init(connect: timeout, read: timeout))
            clientConfiguration.httpVersion = .http1Only
            client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: clientConfiguration)
            ownsClient = true
        }
    }

    func shutdown() async {
        if ownsClient {
            try? await client.shutdown()
        }
    }

    enum Outcome: Sendable, CustomStringConvertible {
        case success
        case status(UInt)
        case error(String)

        var description: String {
            switch self {
            case .success: "2xx"
            case .status(let code): "HTTP \(code)"
            case .error(let message): message
            }
        }
    }

    /// The wait after the `failures`-th failed attempt: `initialDelay`,
    /// doubling, at most `maxDelay`.
    func retryDelay(afterFailures failures: Int) -> Duration {
        var delay = configuration.initialDelay
        for _ in 1..<max(failures, 1) {
            delay = delay * 2
            if delay >= configuration.maxDelay { return configuration.maxDelay }
        }
        return min(delay, configuration.maxDelay)
    }

    /// An attempt's timeout for a callback `age` old. AsyncHTTPClient keeps
    /// retrying a refused connection until the request's deadline, so one
    /// attempt against a dead receiver lasts its whole timeout: capped at
    /// what is left of giveUpAge (at least 1 s, so a callback that waited
    /// its turn too long still gets one real try).
    func attemptTimeout(age: Duration) -> Duration {
        min(configuration.requestTimeout, max(configuration.giveUpAge - age, .seconds(1)))
    }

    /// One attempt.
    func send(_ signed: SignedWebhookRequest, timeout: Duration) async -> Outcome {
        var request = HTTPClientRequest(url: signed.url)
        request.method = HTTPMethod(rawValue: signed.method)
        for header in signed.headers {
            request.headers.add(name: header.name, value: header.value)
        }
        if signed.method != "GET" {
            request.body = .bytes(Array(signed.body.utf8))
        }
        do {
            let response = try await client.execute(request, timeout: Self.timeAmount(timeout))
            // Read (and drop) the body so the connection can be reused; a
            // receiver's answer is at most a few KB, 64 KiB is plenty.
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return (200..<300).contains(response.status.code) ? .success : .status(response.status.code)
        } catch {
            return .error(String(describing: error))
        }
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let components = duration.components
        return .nanoseconds(components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000)
    }

    /// The signed request for a status callback with its `SequenceNumber`.
    static func signed(_ event: WebhookEvent, sequenceNumber: Int, url: String, method: WebhookOutbox.Method, secret: String)
        -> SignedWebhookRequest
    {
        let parameters = event.parameters(sequenceNumber: sequenceNumber)
        let encoded = FormEncoding.encode(parameters)
        switch method {
        case .post:
            return SignedWebhookRequest(
                method: "POST", url: url,
                headers: [
                    .init(name: "Content-Type", value: "application/x-www-form-urlencoded"),
                    .init(name: WebhookSignature.headerName, value: WebhookSignature.sign(url: url, parameters: parameters, secret: secret)),
                ],
                body: encoded)
        case .get:
            let full = url + (url.contains("?") ? "&" : "?") + encoded
            return SignedWebhookRequest(
                method: "GET", url: full,
                headers: [.init(name: WebhookSignature.headerName, value: WebhookSignature.sign(url: full, parameters: [], secret: secret))],
                body: "")
        }
    }

    /// The signed JSON POST of a message callback.
    static func signed(_ message: MessageCallback, url: String, secret: String) -> SignedWebhookRequest {
        let body = message.jsonBody()
        return SignedWebhookRequest(
            method: "POST", url: url,
            headers: [
                .init(name: "Content-Type", value: "application/json"),
                .init(name: WebhookSignature.headerName, value: WebhookSignature.sign(url: url, body: body, secret: secret)),
            ],
            body: String(decoding: body, as: UTF8.self))
    }
}
