import AdminAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import Node

@Suite struct HealthRouteTests {
    func app(_ status: HealthStatus) -> some ApplicationProtocol {
        let router = Router()
        router.addHealthRoute { status }
        return Application(router: router)
    }

    @Test func okIs200WithThePorts() async throws {
        try await app(HealthStatus(status: .ok, rtcPorts: [7882, 7883])).test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                let health = try JSONDecoder().decode(HealthStatus.self, from: Data(buffer: response.body))
                #expect(health == HealthStatus(status: .ok, rtcPorts: [7882, 7883]))
            }
        }
    }

    @Test(arguments: [HealthStatus.State.draining, .atCapacity])
    func drainingOrFullIs503(state: HealthStatus.State) async throws {
        try await app(HealthStatus(status: state, rtcPorts: [7882])).test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                let health = try JSONDecoder().decode(HealthStatus.self, from: Data(buffer: response.body))
                #expect(health.status == state)
            }
        }
    }
}
