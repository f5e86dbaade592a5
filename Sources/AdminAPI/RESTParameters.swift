/// The request parameters of each REST route, by Twilio's PascalCase names
/// (PROTOCOL.md section 6), read from the query string or the body
/// (`AdminRoutes.query`, `AdminRoutes.form`). Names a route does not know
/// are ignored. Every value is kept as text: each route checks its own
/// parameters and answers a bad one with its protocol code (a non-integer
/// `MaxParticipants` is 53107, as an out-of-range one is).
protocol PagedQuery: Decodable {
    var pageSize: FormText? { get }
    var page: FormText? { get }
}

/// `GET /v1/Rooms`.
struct ListRoomsQuery: PagedQuery {
    var status: FormText?
    var uniqueName: FormText?
    var dateCreatedAfter: FormText?
    var dateCreatedBefore: FormText?
    var pageSize: FormText?
    var page: FormText?

    enum CodingKeys: String, CodingKey {
        case status = "Status", uniqueName = "UniqueName", dateCreatedAfter = "DateCreatedAfter"
        case dateCreatedBefore = "DateCreatedBefore", pageSize = "PageSize", page = "Page"
    }
}

/// `GET …/Participants`.
struct ListParticipantsQuery: PagedQuery {
    var status: FormText?
    var identity: FormText?
    var pageSize: FormText?
    var page: FormText?

    enum CodingKeys: String, CodingKey {
        case status = "Status", identity = "Identity", pageSize = "PageSize", page = "Page"
    }
}

/// A list with paging only (the track lists).
struct PageQuery: PagedQuery {
    var pageSize: FormText?
    var page: FormText?

    enum CodingKeys: String, CodingKey {
        case pageSize = "PageSize", page = "Page"
    }
}

/// `POST /v1/Rooms`. Twilio's other create options (`Type`, ...) are ignored.
struct CreateRoomForm: Decodable {
    var uniqueName: FormText?
    var maxParticipants: FormText?
    var emptyRoomTimeout: FormText?
    var unusedRoomTimeout: FormText?
    var statusCallback: FormText?
    var statusCallbackMethod: FormText?

    enum CodingKeys: String, CodingKey {
        case uniqueName = "UniqueName", maxParticipants = "MaxParticipants", emptyRoomTimeout = "EmptyRoomTimeout"
        case unusedRoomTimeout = "UnusedRoomTimeout", statusCallback = "StatusCallback"
        case statusCallbackMethod = "StatusCallbackMethod"
    }
}

/// `POST /v1/Rooms/{RoomSid}` and `POST …/Participants/{ParticipantSid}`.
struct StatusForm: Decodable {
    var status: FormText?

    enum CodingKeys: String, CodingKey {
        case status = "Status"
    }
}

/// `POST …/SubscribeRules`.
struct SubscribeRulesForm: Decodable {
    var rules: FormText?

    enum CodingKeys: String, CodingKey {
        case rules = "Rules"
    }
}

/// `POST …/Messages`.
struct MessageForm: Decodable {
    var content: FormText?
    var contentType: FormText?

    enum CodingKeys: String, CodingKey {
        case content = "Content", contentType = "ContentType"
    }
}

/// `POST …/MessageSubscriptions`.
struct MessageSubscriptionForm: Decodable {
    var callback: FormText?

    enum CodingKeys: String, CodingKey {
        case callback = "Callback"
    }
}
