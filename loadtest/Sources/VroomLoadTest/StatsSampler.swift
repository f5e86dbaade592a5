import AsyncHTTPClient
import Foundation
import LoadTestCore
import NIOCore

/// Reads `GET /v1/Rooms/{name}/Stats` (Basic auth) for `--downlink-kbps`:
/// the server's estimate and layer per subscriber, once a second through
/// the window. Also `GET /healthz` for the media port a relay targets.
struct StatsSampler: Sendable {
    let http: HTTPClient
    let baseURL: String
    let apiKey: String
    let apiSecret: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func sample(room: String) async throws -> RoomStatsSample {
        let name = room.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? room
        var request = HTTPClientRequest(url: baseURL + "/v1/Rooms/" + name + "/Stats")
        request.headers.add(name: "Authorization", value: "Basic \(Data("\(apiKey):\(apiSecret)".utf8).base64EncodedString())")
        let response = try await http.execute(request, timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 16 << 20)
        guard response.status.code == 200 else { throw Failure(description: "GET /Stats of \(room) answered HTTP \(response.status.code)") }
        return try JSONDecoder().decode(RoomStatsSample.self, from: Data(body.readableBytesView))
    }

    /// Samples every room each `interval` until cancelled; per identity its series.
    func run(rooms: [String], interval: Duration) async -> [String: DownlinkSeries] {
        var series: [String: DownlinkSeries] = [:]
        while !Task.isCancelled {
            for room in rooms {
                guard let sample = try? await sample(room: room) else { continue }
                for participant in sample.participants { series[participant.identity, default: .init()].add(participant) }
            }
            try? await Task.sleep(for: interval)
        }
        return series
    }

    struct Health: Decodable {
        var rtcPorts: [Int]
    }

    /// The server's media UDP ports (`GET /healthz`).
    func mediaPorts() async throws -> [Int] {
        let response = try await http.execute(HTTPClientRequest(url: baseURL + "/healthz"), timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status.code == 200 else { throw Failure(description: "GET /healthz answered HTTP \(response.status.code)") }
        return try JSONDecoder().decode(Health.self, from: Data(body.readableBytesView)).rtcPorts
    }
}
