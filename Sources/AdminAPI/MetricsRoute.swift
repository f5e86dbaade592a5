import Foundation
import Hummingbird

/// Who may read `GET /metrics` (PROTOCOL.md section 6: no auth by
/// default; `--metrics-auth` requires the REST API's Basic credentials).
public enum MetricsAccess: Sendable, Equatable {
    case open
    case basic(apiKey: String, apiSecret: String)
}

extension Router {
    /// `GET /metrics`: `metrics.exposition` of what `snapshot` reads, in
    /// Prometheus' text format 0.0.4. With `.basic` access, a request
    /// without the credentials gets the REST API's 401 20003.
    public func addMetricsRoute(
        _ metrics: NodeMetrics, access: MetricsAccess = .open, snapshot: @escaping @Sendable () async -> NodeSnapshot
    ) {
        get("/metrics") { request, _ -> Response in
            if case .basic(let key, let secret) = access {
                guard let header = request.headers[.authorization],
                    RESTAuthentication<Context>.verify(header, key: key, secret: secret)
                else { return RESTError.authentication.response() }
            }
            let body = metrics.exposition(await snapshot())
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: body)))
        }
    }
}
