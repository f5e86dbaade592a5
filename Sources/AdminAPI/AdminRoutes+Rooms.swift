import Foundation
import Hummingbird
import Node
import Rooms

extension AdminRoutes {
    /// `POST /v1/Rooms`: 201 with the room. Non-integer `MaxParticipants`
    /// is 53107 and non-integer timeouts 53109, as out-of-range ones are.
    /// `Type` and Twilio's other create options are accepted and ignored:
    /// every Vroom room is a `group` room.
    func createRoom<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> Response {
        let form = try await form(CreateRoomForm.self, request, context)
        let uniqueName = form.uniqueName?.text
        // A bad name is refused before the cluster places it.
        if let uniqueName {
            do { try NameValidation.validateRoomName(uniqueName) } catch { throw RESTError(error) }
        }
        let maxParticipants = try FormText.integer(form.maxParticipants, or: RESTError(.roomMaxParticipantsOutOfRange))
        let emptyTimeout = try FormText.integer(form.emptyRoomTimeout, or: RESTError(.roomTimeoutOutOfRange))
        let unusedTimeout = try FormText.integer(form.unusedRoomTimeout, or: RESTError(.roomTimeoutOutOfRange))
        let statusCallback = form.statusCallback.flatMap { $0.text.isEmpty ? nil : $0.text }
        if let statusCallback { try Self.checkCallbackURL(statusCallback, name: "StatusCallback") }
        let method = try form.statusCallbackMethod.map(\.text).map { text throws(RESTError) in
            guard let parsed = StatusCallbackMethod(rawValue: text.uppercased()) else {
                throw RESTError.invalidParameter("StatusCallbackMethod must be GET or POST")
            }
            return parsed
        }
        let creation = RoomCreation(
            uniqueName: uniqueName, maxParticipants: maxParticipants, emptyRoomTimeout: emptyTimeout,
            unusedRoomTimeout: unusedTimeout, statusCallback: statusCallback, statusCallbackMethod: method)
        return try await create(creation, links(request), relayedHere: false).response()
    }

    /// Creates the room on this node when it owns the unique name, else has
    /// the name's owner create it (PROTOCOL.md section 8: the owner carries
    /// out an action on a room). A name with no owner yet becomes this
    /// node's, unless it is draining; a room of that name in progress
    /// anywhere is 53113, from its owner. A relayed create is not relayed
    /// again. A name the service makes up (none given) is a fresh SID:
    /// nobody else has it.
    func create(_ creation: RoomCreation, _ links: ResourceLinks, relayedHere: Bool) async throws -> RESTAnswer {
        if let uniqueName = creation.uniqueName {
            switch await placement.claim(uniqueName: uniqueName) {
            case .here:
                // A room of that name still in progress in the cluster (its
                // node died, or drained it here) is carried on here: the name
                // is taken, 53113, as on the node that had it.
                if let snapshot = await placement.takeOver(room: uniqueName) {
                    try await perform { (service: inout RoomService, now) throws(RoomError) in
                        RoomOutcome(value: (), events: try service.adopt(snapshot, now: now))
                    }
                    throw RESTError(.roomExists)
                }
            case .elsewhere:
                // Relayed here, yet the name moved on meanwhile (a drain): try again.
                if relayedHere {
                    throw RESTError(status: 503, code: ProtocolErrorCode.signalingServerBusy.rawValue,
                                    message: "The room's name moved to another node meanwhile; try again")
                }
                guard relay != nil else { throw RESTError(.roomExists) }
                if let answer = try await relayed(.createRoom(creation), to: uniqueName, links) { return answer }
                // The name became this node's meanwhile.
                return try await create(creation, links, relayedHere: true)
            case .unavailable:
                throw RESTError(status: 503, code: ProtocolErrorCode.signalingServerBusy.rawValue,
                                message: "The cluster's database is unavailable; try again")
            }
        }
        let room = try await perform { (service: inout RoomService, now) throws(RoomError) in
            try service.createRoom(
                uniqueName: creation.uniqueName, maxParticipants: creation.maxParticipants,
                emptyRoomTimeoutMinutes: creation.emptyRoomTimeout, unusedRoomTimeoutMinutes: creation.unusedRoomTimeout,
                statusCallback: creation.statusCallback, statusCallbackMethod: creation.statusCallbackMethod, now: now)
        }
        // The room's record reaches the database before the answer, so a
        // read by its SID at any node that follows it finds the room (as
        // `execute` does for the other actions).
        try? await history.caughtUp()
        return try JSONBody.answer(RoomResource(room).json(links), status: .created)
    }

    /// `GET /v1/Rooms`: newest first, filtered and paged by the history,
    /// which has every room with its current status (a room's record is
    /// written when it is created and when its status changes). A room still
    /// in progress shows the host's record: its `date_updated` moves with
    /// every join and leave.
    func listRooms(_ request: Request) async throws -> Response {
        let query = try query(ListRoomsQuery.self, request)
        let paging = try Paging(query)
        var filters: [(String, String)] = []
        var status: RoomStatus?
        if let text = query.status?.text {
            guard let parsed = RoomStatus(rawValue: text) else {
                throw RESTError.invalidParameter("Status must be in-progress, completed or failed")
            }
            status = parsed
            filters.append(("Status", text))
        }
        let uniqueName = query.uniqueName?.text
        if let uniqueName { filters.append(("UniqueName", uniqueName)) }
        let after = try Self.dateFilter(query.dateCreatedAfter, "DateCreatedAfter", into: &filters)
        let before = try Self.dateFilter(query.dateCreatedBefore, "DateCreatedBefore", into: &filters)

        let page = try await history.rooms(
            status: status, uniqueName: uniqueName, createdAfter: after, createdBefore: before,
            page: paging.page, pageSize: paging.pageSize)
        var live: [RoomSID: RoomRecord] = [:]
        if page.items.contains(where: { $0.status == .inProgress }) {
            for room in await host.read({ $0.allRooms() }) { live[room.sid] = room }
        }
        let links = links(request)
        return try JSONBody.response(paging.body(
            key: "rooms", items: page.items.map { RoomResource(live[$0.sid] ?? $0).json(links) },
            hasNext: page.hasNextPage, url: listURL(request), filters: filters))
    }

    /// `GET /v1/Rooms/{RoomSid}`.
    func fetchRoom<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> Response {
        try JSONBody.response(try await findRoom(context).resource.json(links(request)))
    }

    /// `POST /v1/Rooms/{RoomSid}` with `Status=completed`: 202 with the
    /// completed room; every participant gets `disconnected` 53118. Any
    /// other status, or a room that already ended, is 53112. Carried out by
    /// the room's owner (`carryOut`).
    func updateRoom<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> Response {
        let form = try await form(StatusForm.self, request, context)
        let action = RoomAction.updateRoom(room: try pathParameter(context, "room"), status: form.status?.text)
        return try await carryOut(action, links(request)).response()
    }

    /// `updateRoom` on this node's host.
    func completeRoom(_ reference: String, status: String?, _ links: ResourceLinks) async throws -> RESTAnswer {
        let room = try await findRoom(reference)
        guard status == "completed" else { throw RESTError(.roomStatusInvalid) }
        guard room.inHost, room.resource.status == RoomStatus.inProgress.rawValue else {
            throw RESTError(.roomStatusInvalid)
        }
        let sid = room.resource.sid
        let completed = try await perform { (service: inout RoomService, now) throws(RoomError) in
            try service.completeRoom(sid, now: now)
        }
        return try JSONBody.answer(RoomResource(completed).json(links), status: .accepted)
    }

    // MARK: - Parameters

    static func dateFilter(_ value: FormText?, _ name: String, into filters: inout [(String, String)]) throws(RESTError) -> Date? {
        guard let text = value?.text else { return nil }
        guard let date = TwilioDate.parse(text) else {
            throw RESTError.invalidParameter("\(name) must be a date, YYYY-MM-DDTHH:MM:SSZ or YYYY-MM-DD")
        }
        filters.append((name, text))
        return date
    }

    /// Callback URLs must be absolute http(s) URLs (400 20001 otherwise).
    static func checkCallbackURL(_ text: String, name: String) throws(RESTError) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host != nil
        else {
            throw RESTError.invalidParameter("\(name) must be an http or https URL")
        }
    }
}
