import Foundation
import Hummingbird

extension Router {
    /// `GET /healthz`, liveness: 200 while the process serves, also when it
    /// is full or draining (a restart would help neither). `GET /readyz`,
    /// readiness: 200 when the node takes new participants, else 503 with
    /// the reason, asked of `readiness()` at each request.
    public func addHealthRoutes(rtcPorts: [Int], readiness: @escaping @Sendable () async -> Readiness.State) {
        let health = HealthStatus(rtcPorts: rtcPorts)
        get("/healthz") { _, _ -> Response in
            try JSONBody.response(health)
        }
        get("/readyz") { _, _ -> Response in
            let state = await readiness()
            return try JSONBody.response(Readiness(state), status: state == .ok ? .ok : .serviceUnavailable)
        }
    }
}
