import AsyncHTTPClient
import LoadTestCore
import NIOCore

/// Reads the server's `GET /metrics` (Prometheus text, no auth).
struct MetricsScraper: Sendable {
    let http: HTTPClient
    let baseURL: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func scrape() async throws -> MetricsSnapshot {
        let response = try await http.execute(HTTPClientRequest(url: baseURL + "/metrics"), timeout: .seconds(10))
        // A server with 1000 rooms exports a few hundred KB at most; 16 MB is far past any real body.
        let body = try await response.body.collect(upTo: 16 << 20)
        guard response.status.code == 200 else {
            throw Failure(description: "GET /metrics answered HTTP \(response.status.code)")
        }
        let snapshot = MetricsSnapshot(parsing: String(buffer: body))
        guard !snapshot.samples.isEmpty else { throw Failure(description: "GET /metrics had no samples") }
        return snapshot
    }
}
