import Foundation
import Hummingbird

/// What `GET /healthz` reports (PROTOCOL.md section 6): 200 when the node can
/// take participants, 503 when it is draining or at capacity; the media ports
/// are listed so that tests started with `--rtc-port 0` can find them.
public struct HealthStatus: Sendable, Codable, Equatable {
    public enum State: String, Sendable, Codable {
        case ok
        case draining
        case atCapacity = "at-capacity"
    }

    public var status: State
    public var rtcPorts: [Int]

    public init(status: State, rtcPorts: [Int]) {
        self.status = status
        self.rtcPorts = rtcPorts
    }
}

extension Router {
    /// `GET /healthz`, answered from `health()` at each request.
    public func addHealthRoute(health: @escaping @Sendable () async -> HealthStatus) {
        get("/healthz") { _, _ -> Response in
            let current = await health()
            let body = try JSONEncoder().encode(current)
            return Response(
                status: current.status == .ok ? .ok : .serviceUnavailable,
                headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
    }
}
