import Hummingbird

/// `POST /v1/Node/Drain` (PROTOCOL.md section 8), with the REST API's Basic
/// auth: the node starts draining as on SIGTERM (`/readyz` says so, no new
/// room is placed on it, its rooms go on until they end or the drain
/// timeout), then exits 0. Answers 202 with `{"status":"draining"}` at once;
/// asking again changes nothing.
public struct NodeRoutes: Sendable {
    let apiKey: String
    let apiSecret: String
    let drain: @Sendable () async -> Void

    public init(apiKey: String, apiSecret: String, drain: @escaping @Sendable () async -> Void) {
        self.apiKey = apiKey
        self.apiSecret = apiSecret
        self.drain = drain
    }

    public func register<Context: RequestContext>(on router: Router<Context>) {
        let drain = drain
        router.group("v1/Node")
            .add(middleware: RESTAuthentication<Context>(apiKey: apiKey, apiSecret: apiSecret))
            .post("Drain") { _, _ -> Response in
                await drain()
                return try JSONBody.response(["status": "draining"], status: .accepted)
            }
    }
}
