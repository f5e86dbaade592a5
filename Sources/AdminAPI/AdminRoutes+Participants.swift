import Foundation
import Hummingbird
import Rooms

extension AdminRoutes {
    /// `GET …/Participants`: join order, filters `Status` and `Identity`.
    /// An in-progress room defaults to `Status=connected` (Twilio's rule;
    /// the default is not written into the page URLs, which keep only the
    /// filters the client gave). Filtered and paged by the history, which
    /// has every session with its current status; a session still live
    /// shows the host's record (its `date_updated` moves with every
    /// operation, the history's with each status change).
    func listParticipants<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> Response {
        let query = try query(ListParticipantsQuery.self, request)
        let paging = try Paging(query)
        let room = try await findRoom(context)
        var filters: [(String, String)] = []
        var status: ParticipantStatus?
        if let text = query.status?.text {
            guard let parsed = ParticipantStatus(rawValue: text) else {
                throw RESTError.invalidParameter("Status must be connected, reconnecting or disconnected")
            }
            status = parsed
            filters.append(("Status", text))
        } else if room.resource.status == RoomStatus.inProgress.rawValue {
            status = .connected
        }
        let identity = query.identity?.text
        if let identity { filters.append(("Identity", identity)) }

        let roomSID = room.resource.sid
        var live: [ParticipantSID: ParticipantRecord] = [:]
        if room.inHost {
            let current = await host.read { service in (try? service.participants(inRoom: roomSID)) ?? [] }
            for participant in current { live[participant.sid] = participant }
        }
        let page = try await history.participants(
            roomSID: RoomSID(unchecked: roomSID), status: status, identity: identity,
            page: paging.page, pageSize: paging.pageSize)
        let items = page.items.map { ParticipantResource(live[$0.sid] ?? $0) }
        let hasNext = page.hasNextPage
        let links = links(request)
        return try JSONBody.response(paging.body(
            key: "participants", items: items.map { $0.json(links) }, hasNext: hasNext,
            url: listURL(request), filters: filters))
    }

    /// `GET …/Participants/{ParticipantSid}` (SID or identity).
    func fetchParticipant<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> Response {
        let room = try await findRoom(context)
        return try JSONBody.response(try await findParticipant(in: room, context).json(links(request)))
    }

    /// `POST …/Participants/{ParticipantSid}` with `Status=disconnected`:
    /// 202 with the participant, which gets `disconnected` 53216. Another
    /// status is 20001; a participant no longer in the room is 53204.
    /// Carried out by the room's owner (`carryOut`).
    func updateParticipant<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> Response {
        let form = try await form(StatusForm.self, request, context)
        let action = RoomAction.updateParticipant(
            room: try pathParameter(context, "room"), participant: try pathParameter(context, "participant"),
            status: form.status?.text)
        return try await carryOut(action, links(request)).response()
    }

    /// `updateParticipant` on this node's host.
    func removeParticipant(
        _ roomReference: String, _ reference: String, status: String?, _ links: ResourceLinks
    ) async throws -> RESTAnswer {
        let room = try await findRoom(roomReference)
        let participant = try await findParticipant(in: room, reference)
        guard status == "disconnected" else {
            throw RESTError.invalidParameter("Status must be disconnected")
        }
        guard room.inHost, participant.status != ParticipantStatus.disconnected.rawValue else {
            throw RESTError(.participantNotFound)
        }
        let (roomSID, sid) = (room.resource.sid, participant.sid)
        let removed = try await perform { (service: inout RoomService, now) throws(RoomError) in
            try service.removeParticipant(room: roomSID, participant: sid, now: now)
        }
        return try JSONBody.answer(ParticipantResource(removed).json(links), status: .accepted)
    }

    /// The addressed participant's SID when it is current on this node (for
    /// operations that need a live session), else 53204.
    func currentParticipant(_ roomReference: String, _ reference: String) async throws -> (room: FoundRoom, sid: ParticipantSID) {
        let room = try await findRoom(roomReference)
        let participant = try await findParticipant(in: room, reference)
        guard room.inHost, participant.status != ParticipantStatus.disconnected.rawValue,
            let sid = ParticipantSID(validating: participant.sid)
        else { throw RESTError(.participantNotFound) }
        return (room, sid)
    }
}
