import AdminAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import Node

/// `/healthz` is liveness, `/readyz` readiness (PROTOCOL.md section 6).
@Suite struct HealthRouteTests {
    func app(_ state: Readiness.State) -> some ApplicationProtocol {
        let router = Router()
        router.addHealthRoutes(rtcPorts: [7882, 7883]) { state }
        return Application(router: router)
    }

    @Test(arguments: Readiness.State.allCases)
    func healthzIs200WithThePortsInEveryState(state: Readiness.State) async throws {
        try await app(state).test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                let health = try JSONDecoder().decode(HealthStatus.self, from: Data(buffer: response.body))
                #expect(health == HealthStatus(rtcPorts: [7882, 7883]))
                #expect(String(buffer: response.body) == #"{"rtcPorts":[7882,7883],"status":"ok"}"#)
            }
        }
    }

    @Test func readyzIs200WhenTheNodeTakesParticipants() async throws {
        try await app(.ok).test(.router) { client in
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                #expect(String(buffer: response.body) == #"{"status":"ok"}"#)
            }
        }
    }

    @Test(arguments: [Readiness.State.draining, .full])
    func readyzIs503WhenDrainingOrFull(state: Readiness.State) async throws {
        try await app(state).test(.router) { client in
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(String(buffer: response.body) == #"{"status":"\#(state.rawValue)"}"#)
            }
        }
    }
}
