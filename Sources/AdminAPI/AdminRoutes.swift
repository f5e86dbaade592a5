import Foundation
import Hummingbird
import Node
import Persistence
import Rooms

/// The admin REST API of PROTOCOL.md section 6, in Twilio Rooms' shape.
///
/// Sources: what is live (rooms in progress, their connected and
/// reconnecting participants, publications, subscriptions and rules) is
/// read from the node's `RoomHost`; everything that ended (completed rooms,
/// participants that left, rooms of earlier runs) from the `HistoryStore`,
/// which the host's records reach in order. The host keeps nothing that
/// ended, so its memory follows the live sessions. A store read waits for
/// the records enqueued before it (`HistoryStore.caughtUp`), so a read
/// right after a leave or a completion already finds its records.
public struct AdminRoutes: Sendable {
    public let host: RoomHost
    public let history: any HistoryStore
    public let configuration: AdminConfiguration
    /// Where `MessageSubscriptions` are kept; the event recorder reads it.
    public let messageSubscriptions: any MessageSubscriptionList
    /// The node's media plane, read by `/Stats`; nil: rooms report no media.
    public let media: RoomMedia?
    /// Where rooms live: a REST create claims its name here first.
    public let placement: any RoomPlacement
    /// In a cluster, how an action on a room another node owns reaches that
    /// node (`carryOut`); nil: every room is here.
    public let relay: (any RoomActionRelay)?

    public init(
        host: RoomHost, history: any HistoryStore, configuration: AdminConfiguration,
        messageSubscriptions: any MessageSubscriptionList = MessageSubscriptions(), media: RoomMedia? = nil,
        placement: any RoomPlacement = SingleNodePlacement(), relay: (any RoomActionRelay)? = nil
    ) {
        self.host = host
        self.relay = relay
        self.placement = placement
        self.media = media
        self.history = history
        self.configuration = configuration
        self.messageSubscriptions = messageSubscriptions
    }

    /// Adds every `/v1/Rooms…` route, behind HTTP Basic auth. Other routes
    /// of the router (`/v1/signal`, `/healthz`) are not affected.
    public func register<Context: RequestContext>(on router: Router<Context>) {
        let rooms = router.group("v1/Rooms")
            .add(middleware: RESTAuthentication<Context>(apiKey: configuration.apiKey, apiSecret: configuration.apiSecret))
        let participant = ":room/Participants/:participant"
        rooms.post { request, context in await respond { try await createRoom(request, context) } }
        rooms.get { request, _ in await respond { try await listRooms(request) } }
        rooms.get(":room") { request, context in await respond { try await fetchRoom(request, context) } }
        rooms.post(":room") { request, context in await respond { try await updateRoom(request, context) } }
        rooms.get(":room/Stats") { request, context in await respond { try await roomStats(request, context) } }
        rooms.get(":room/Participants") { request, context in
            await respond { try await listParticipants(request, context) }
        }
        rooms.get("\(participant)") { request, context in await respond { try await fetchParticipant(request, context) } }
        rooms.post("\(participant)") { request, context in await respond { try await updateParticipant(request, context) } }
        rooms.get("\(participant)/PublishedTracks") { request, context in
            await respond { try await publishedTracks(request, context, track: nil) }
        }
        rooms.get("\(participant)/PublishedTracks/:track") { request, context in
            await respond { try await publishedTracks(request, context, track: try pathParameter(context, "track")) }
        }
        rooms.get("\(participant)/SubscribedTracks") { request, context in
            await respond { try await subscribedTracks(request, context, track: nil) }
        }
        rooms.get("\(participant)/SubscribedTracks/:track") { request, context in
            await respond { try await subscribedTracks(request, context, track: try pathParameter(context, "track")) }
        }
        rooms.get("\(participant)/SubscribeRules") { request, context in
            await respond { try await fetchSubscribeRules(request, context) }
        }
        rooms.post("\(participant)/SubscribeRules") { request, context in
            await respond { try await updateSubscribeRules(request, context) }
        }
        rooms.post("\(participant)/Messages") { request, context in
            await respond { try await sendMessage(request, context) }
        }
        rooms.post("\(participant)/MessageSubscriptions") { request, context in
            await respond { try await subscribeMessages(request, context) }
        }
        // Twilio's Network Traversal Service (PROTOCOL.md section 9), same credentials.
        router.group("2010-04-01/Accounts")
            .add(middleware: RESTAuthentication<Context>(apiKey: configuration.apiKey, apiSecret: configuration.apiSecret))
            .post(":account/Tokens.json") { request, context in await respond { try await createToken(request, context) } }
    }

    // MARK: - Request plumbing

    /// Runs a handler; a `RESTError` becomes its JSON answer, anything
    /// else (the history store failing) a 500 in the same shape.
    func respond(_ handler: () async throws -> Response) async -> Response {
        do {
            return try await handler()
        } catch let error as RESTError {
            return error.response()
        } catch {
            return RESTError.internalError.response()
        }
    }

    /// A path segment, percent-decoded (names may hold `/`, `?`, `#`).
    func pathParameter<Context: RequestContext>(_ context: Context, _ name: String) throws(RESTError) -> String {
        guard let raw = context.parameters.get(name) else { throw RESTError.notFound("Missing \(name)") }
        return raw.removingPercentEncoding ?? raw
    }

    /// The base of absolute URLs: `--public-url`, else the address the
    /// request came to (`https://` + Host over TLS).
    func links(_ request: Request) -> ResourceLinks {
        let base = configuration.publicURL
            ?? configuration.scheme + "://" + (request.head.authority ?? "localhost")
        return ResourceLinks(base: base, accountSID: configuration.accountSID)
    }

    /// The list's absolute URL (the path as requested, without query).
    func listURL(_ request: Request) -> String {
        links(request).base + request.uri.path
    }

    /// The query string's parameters; a malformed one is 400 20001.
    func query<Query: Decodable>(_ type: Query.Type, _ request: Request) throws(RESTError) -> Query {
        do {
            return try URLEncodedFormDecoder().decode(Query.self, from: request.uri.query ?? "")
        } catch {
            throw RESTError.invalidParameter("The query string is malformed: \(error)")
        }
    }

    /// The body's parameters, at most the context's upload limit (2 MB):
    /// JSON when the `Content-Type` says `application/json`, else form
    /// encoding (Twilio's libraries send form bodies). A body that does not
    /// parse is 400 20001.
    func form<Form: Decodable, Context: RequestContext>(
        _ type: Form.Type, _ request: Request, _ context: Context
    ) async throws -> Form {
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        let mediaType = request.headers[.contentType]?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        if mediaType == "application/json" {
            do {
                return try JSONDecoder().decode(Form.self, from: Data(buffer: buffer))
            } catch {
                throw RESTError.invalidParameter("The request body is not a JSON object")
            }
        }
        do {
            return try URLEncodedFormDecoder().decode(Form.self, from: String(buffer: buffer))
        } catch {
            throw RESTError.invalidParameter("The request body is not a valid form: \(error)")
        }
    }

    // MARK: - Lookups

    /// A room found by SID or unique name; `inHost` when the host knows it.
    struct FoundRoom: Sendable {
        var resource: RoomResource
        var inHost: Bool
    }

    func findRoom<Context: RequestContext>(_ context: Context) async throws -> FoundRoom {
        try await findRoom(try pathParameter(context, "room"))
    }

    /// The host's room (in progress first, else its most recently completed
    /// one of that name), else history's (`latestRoom`), else 53106.
    func findRoom(_ reference: String) async throws -> FoundRoom {
        let live = await host.read { service in
            Result { () throws(RoomError) -> RoomRecord in try service.room(reference) }
        }
        if case .success(let room) = live { return FoundRoom(resource: RoomResource(room), inHost: true) }
        if let room = try await history.room(sid: reference) {
            return FoundRoom(resource: RoomResource(room), inHost: false)
        }
        if let room = try await history.latestRoom(uniqueName: reference) {
            return FoundRoom(resource: RoomResource(room), inHost: false)
        }
        throw RESTError(.roomNotFound)
    }

    /// The participant by SID or identity: the host's current session,
    /// else history's (by identity its most recent session), else 53204.
    func findParticipant<Context: RequestContext>(in room: FoundRoom, _ context: Context) async throws -> ParticipantResource {
        try await findParticipant(in: room, try pathParameter(context, "participant"))
    }

    func findParticipant(in room: FoundRoom, _ reference: String) async throws -> ParticipantResource {
        let roomSID = room.resource.sid
        if room.inHost {
            let live = await host.read { service in try? service.participant(room: roomSID, reference) }
            if let live { return ParticipantResource(live) }
        }
        guard let participant = try await history.participant(roomSID: RoomSID(unchecked: roomSID), sidOrIdentity: reference) else {
            throw RESTError(.participantNotFound)
        }
        return ParticipantResource(participant)
    }

    /// Runs a room operation on the host; its `RoomError` becomes the REST error.
    func perform<Value: Sendable>(
        _ operation: @Sendable (inout RoomService, Date) throws(RoomError) -> RoomOutcome<Value>
    ) async throws(RESTError) -> Value {
        do {
            return try await host.perform(operation)
        } catch {
            throw RESTError(error)
        }
    }
}
