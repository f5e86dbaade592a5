import AsyncHTTPClient
import Foundation
import LoadTestCore
import NIOCore

/// Creates the run's rooms through the admin REST API before anyone joins
/// (PROTOCOL.md section 6: form-encoded, Basic auth with the API key and
/// secret) and ends them afterwards, so a run leaves nothing open.
struct RoomProvisioner: Sendable {
    let http: HTTPClient
    let baseURL: String
    let apiKey: String
    let apiSecret: String

    /// The server answered, but not with success.
    struct Failure: Error, CustomStringConvertible {
        var status: Int
        var description: String
    }

    /// `POST /v1/Rooms` with `UniqueName` and `MaxParticipants`; an empty
    /// room ends after 1 minute (`EmptyRoomTimeout`) should the end-of-run
    /// `completed` never arrive.
    func create(_ room: LoadPlan.Room) async throws {
        let (status, body) = try await post(
            path: "/v1/Rooms",
            form: [("UniqueName", room.name), ("MaxParticipants", String(room.maxParticipants)), ("EmptyRoomTimeout", "1")])
        guard status == 201 else { throw Failure(status: status, description: Self.describe(status: status, body: body)) }
    }

    /// `POST /v1/Rooms/{name}` with `Status=completed`.
    func complete(_ room: LoadPlan.Room) async throws {
        let path = "/v1/Rooms/" + (room.name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? room.name)
        let (status, body) = try await post(path: path, form: [("Status", "completed")])
        guard (200..<300).contains(status) else { throw Failure(status: status, description: Self.describe(status: status, body: body)) }
    }

    private func post(path: String, form: [(String, String)]) async throws -> (Int, String) {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .POST
        let credentials = Data("\(apiKey):\(apiSecret)".utf8).base64EncodedString()
        request.headers.add(name: "Authorization", value: "Basic \(credentials)")
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: Self.formEncode(form)))
        let response = try await http.execute(request, timeout: .seconds(15))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: body))
    }

    /// `application/x-www-form-urlencoded`: unreserved characters stay, the
    /// rest are percent-encoded (so `+`, `&` and `=` in a name survive).
    static func formEncode(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        func encode(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s }
        return pairs.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }

    /// "HTTP 400, 53107: MaxParticipants out of range" from the error body.
    static func describe(status: Int, body: String) -> String {
        struct ErrorBody: Decodable {
            var code: Int
            var message: String?
        }
        if let error = try? JSONDecoder().decode(ErrorBody.self, from: Data(body.utf8)) {
            var text = "HTTP \(status), \(error.code): \(error.message ?? "")"
            if error.code == 53107 { text += " (the server's rooms.maxParticipantsLimit is below what the room needs)" }
            return text
        }
        return "HTTP \(status): \(body.prefix(200))"
    }
}
