/// What `GET /healthz` (liveness) reports: always `ok` while the process
/// serves, with the media ports, so that tests started with `--rtc-port 0`
/// can find them.
public struct HealthStatus: Sendable, Codable, Equatable {
    public var status: String
    public var rtcPorts: [Int]

    public init(rtcPorts: [Int]) {
        self.status = "ok"
        self.rtcPorts = rtcPorts
    }
}
