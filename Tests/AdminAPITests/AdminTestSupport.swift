import AdminAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Persistence
import Rooms
import Testing
import Node

/// Twilio's pinned OpenAPI file (PROTOCOL.md section 6), read from the shared
/// reference folder next to the package: `<package>/../shared/reference/`.
enum TwilioSchema {
    static let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/reference/twilio_video_v1_rooms.json")

    static let available = FileManager.default.fileExists(atPath: url.path)

    /// Twilio's Tokens resource (API v2010), extracted into the repository
    /// with its provenance (docs/reference/README.md).
    static let tokensURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/reference/twilio_api_v2010_tokens.json")

    /// Property names of one schema in `components.schemas` of `file` (the Rooms file by default).
    static func properties(_ schema: String, in file: URL = url) throws -> [String: [String: Any]] {
        let data = try Data(contentsOf: file)
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let schemas = try #require((root["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let entry = try #require(schemas[schema] as? [String: Any], "no schema \(schema)")
        return try #require(entry["properties"] as? [String: [String: Any]])
    }

    /// Every property of `schema` is present in `object`; a non-null one has
    /// the schema's JSON type, and date-times are exactly `YYYY-MM-DDTHH:MM:SSZ`.
    static func expectConforms(
        _ object: [String: Any], to schema: String, in file: URL = url, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for (name, property) in try properties(schema, in: file) {
            guard let value = object[name] else {
                Issue.record("\(schema): missing \(name)", sourceLocation: sourceLocation)
                continue
            }
            if value is NSNull {
                #expect(property["nullable"] as? Bool == true, "\(schema).\(name) is null but not nullable", sourceLocation: sourceLocation)
                continue
            }
            switch property["type"] as? String {
            case "string":
                #expect(value is String, "\(schema).\(name) should be a string", sourceLocation: sourceLocation)
                if property["format"] as? String == "date-time" {
                    #expect((value as? String).map(isTwilioDate) == true, "\(schema).\(name) = \(value)", sourceLocation: sourceLocation)
                }
                if property["format"] as? String == "date-time-rfc-2822" {
                    #expect((value as? String).map(isRFC2822Date) == true, "\(schema).\(name) = \(value)", sourceLocation: sourceLocation)
                }
                if let minimum = property["minLength"] as? Int, let text = value as? String {
                    #expect(text.count >= minimum, "\(schema).\(name) = \(text) shorter than \(minimum)", sourceLocation: sourceLocation)
                }
                if let maximum = property["maxLength"] as? Int, let text = value as? String {
                    #expect(text.count <= maximum, "\(schema).\(name) = \(text) longer than \(maximum)", sourceLocation: sourceLocation)
                }
                if property["format"] as? String == "uri" {
                    #expect((value as? String)?.hasPrefix("http") == true, "\(schema).\(name) must be absolute", sourceLocation: sourceLocation)
                }
                if let pattern = property["pattern"] as? String, let text = value as? String {
                    #expect(text.range(of: pattern, options: .regularExpression) != nil, "\(schema).\(name) = \(text) !~ \(pattern)", sourceLocation: sourceLocation)
                }
                if let values = property["enum"] as? [String], let text = value as? String {
                    #expect(values.contains(text), "\(schema).\(name) = \(text) not in \(values)", sourceLocation: sourceLocation)
                }
            case "integer":
                #expect(value is Int, "\(schema).\(name) should be an integer", sourceLocation: sourceLocation)
            case "boolean":
                #expect(value is Bool, "\(schema).\(name) should be a boolean", sourceLocation: sourceLocation)
            case "array":
                #expect(value is [Any], "\(schema).\(name) should be an array", sourceLocation: sourceLocation)
            case "object":
                #expect(value is [String: Any], "\(schema).\(name) should be an object", sourceLocation: sourceLocation)
            default:
                break
            }
        }
    }

    /// RFC 2822 as Twilio's API v2010 writes it: `Fri, 01 May 2020 01:42:57 +0000`.
    static func isRFC2822Date(_ text: String) -> Bool {
        text.range(
            of: #"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} \+0000$"#,
            options: .regularExpression) != nil
    }

    static func isTwilioDate(_ text: String) -> Bool {
        text.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"#, options: .regularExpression) != nil
    }
}

/// Collects what the host delivers to one participant.
final class FakeConnection: ParticipantConnection, @unchecked Sendable {
    // @unchecked: `notices` is only touched under `lock`.
    private let lock = NSLock()
    private var notices: [ParticipantNotice] = []

    func deliver(_ notice: ParticipantNotice) { lock.withLock { notices.append(notice) } }

    var received: [ParticipantNotice] { lock.withLock { notices } }

    var disconnectError: RoomError? {
        for case .disconnected(let error) in received { return error }
        return nil
    }
}

/// A host, an in-memory history and the admin routes on a router.
struct AdminFixture {
    static let key = "SKtestkey"
    static let secret = "test-secret"
    static let base = "https://video.example.com"

    /// The rooms' clock stands still during a test, so durations and dates
    /// do not depend on how loaded the machine is (`duration` reads 0).
    /// Its records reach the history as in the server (`RoomEventRecorder`).
    let host: RoomHost
    let history: any HistoryStore
    let routes: AdminRoutes
    let router = Router()

    init(publicURL: String? = AdminFixture.base, turn: TURNConfiguration? = nil) throws {
        let history = try SQLiteHistoryStore(path: ":memory:")
        self.history = history
        let frozen = Date()
        host = RoomHost(clock: { frozen }, eventSink: { history.record($0) })
        routes = AdminRoutes(
            host: host, history: history,
            configuration: AdminConfiguration(apiKey: Self.key, apiSecret: Self.secret, publicURL: publicURL, turn: turn))
        routes.register(on: router)
        router.addHealthRoutes(rtcPorts: []) { .ok }
        router.get("/v1/signal") { _, _ in "signal" }
    }

    var app: some ApplicationProtocol { Application(router: router) }

    static var authorization: String {
        "Basic " + Data("\(key):\(secret)".utf8).base64EncodedString()
    }

    /// Joins `identity` to `room` through the host, as a signaling session would.
    @discardableResult
    func join(_ identity: String, room: String = "standup", connection: FakeConnection = FakeConnection()) async throws -> ParticipantSID {
        let result = try await host.admit(connection: connection, joined: { _ in }) { (service: inout RoomService, now) throws(RoomError) in
            try service.join(roomName: room, identity: identity, now: now)
        }
        return result.participant.sid
    }

    func publish(_ participant: ParticipantSID, _ tracks: [TrackRequest]) async throws -> [PublishedTrackAssignment] {
        try await host.perform { (service: inout RoomService, now) throws(RoomError) in
            try service.publish(participant: participant, tracks: tracks, now: now)
        }
    }
}

/// One answer, parsed.
struct Answer {
    var status: Int
    var json: [String: Any]

    var code: Int? { json["code"] as? Int }
}

extension TestClientProtocol {
    /// Sends with the fixture's credentials (unless `authorization` says
    /// otherwise), a form body when `form` is given.
    func call(
        _ method: HTTPRequest.Method, _ uri: String, form: [(String, String)]? = nil, json: String? = nil,
        authorization: String? = AdminFixture.authorization
    ) async throws -> Answer {
        var headers: HTTPFields = [:]
        if let authorization { headers[.authorization] = authorization }
        var body: ByteBuffer?
        if let form {
            headers[.contentType] = "application/x-www-form-urlencoded"
            let text = form.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
            body = ByteBuffer(string: text)
        } else if let json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(string: json)
        }
        return try await execute(uri: uri, method: method, headers: headers, body: body) { response in
            let data = Data(buffer: response.body)
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            return Answer(status: Int(response.status.code), json: object)
        }
    }

    private func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// Percent-encodes one path segment (names may hold `/`, `?`, `#`).
func segment(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
}
