import Foundation
import Hummingbird
import Rooms

/// A REST error in Twilio's shape (PROTOCOL.md section 6):
/// `{"code":53106,"message":"Room not found","more_info":"…","status":404}`.
public struct RESTError: Error, Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// Twilio's (or Vroom's) numeric code.
    public var code: Int
    public var message: String

    public init(status: Int, code: Int, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// A room error with its code and the status of `RoomError.httpStatus`.
    public init(_ error: RoomError) {
        switch error {
        case .trackNotFound:
            // Twilio answers unknown sub-resources with its generic 20404.
            self = .notFound("The requested resource was not found")
        default:
            self.init(status: error.httpStatus, code: error.code, message: error.message)
        }
    }

    /// 401 20003, Twilio's answer to missing or wrong credentials.
    public static let authentication = RESTError(status: 401, code: 20003, message: "Authentication Error - invalid username")

    /// 400 20001 (Twilio's "Invalid parameter") for a parameter no
    /// protocol code covers (bad `PageSize`, unknown `Status`, ...).
    public static func invalidParameter(_ message: String) -> RESTError {
        RESTError(status: 400, code: 20001, message: message)
    }

    /// 404 20404, Twilio's generic not-found (unknown tracks).
    public static func notFound(_ message: String) -> RESTError {
        RESTError(status: 404, code: 20404, message: message)
    }

    /// 500 20500: the history store failed.
    public static let internalError = RESTError(status: 500, code: 20500, message: "Internal Server Error")

    /// A refused server message (PROTOCOL.md 3.5 limits): the status is the
    /// refusal's HTTP-like code (409, 400, 413, 429) and the code Twilio's
    /// 20000 + status convention (20409, 20400, 20413, 20429); the message is
    /// the refusal's `reason` (`payload-too-large`, ...).
    public init(_ refusal: MessageRefusal) {
        self.init(status: refusal.code, code: 20_000 + refusal.code, message: refusal.reason)
    }

    var moreInfo: String { "https://www.twilio.com/docs/errors/\(code)" }

    /// The JSON body, in Twilio's error shape.
    struct Body: Encodable {
        var code: Int
        var message: String
        var moreInfo: String
        var status: Int

        enum CodingKeys: String, CodingKey {
            case code, message, moreInfo = "more_info", status
        }
    }

    /// The JSON response.
    public func response() -> Response {
        answer().response()
    }

    /// The status and JSON body.
    func answer() -> RESTAnswer {
        let body = Body(code: code, message: message, moreInfo: moreInfo, status: status)
        // Two integers and two strings: encoding cannot fail.
        return RESTAnswer(status: status, body: (try? JSONBody.encode(body)) ?? Data())
    }
}
