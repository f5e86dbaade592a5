import Foundation
import Hummingbird
import Rooms

extension AdminRoutes {
    /// `GET …/PublishedTracks[/{TrackSid}]`: the participant's current
    /// publications (none once it left). An unknown track is 404 20404.
    /// Read at the owner of a room in progress (`carryOut`), which knows a
    /// publication as soon as its participant does; the database is a
    /// moment behind.
    func publishedTracks<Context: RequestContext>(_ request: Request, _ context: Context, track: String?) async throws -> Response {
        let action = RoomAction.publishedTracks(
            room: try pathParameter(context, "room"), participant: try pathParameter(context, "participant"),
            track: track, url: listURL(request), query: request.uri.query ?? "")
        return try await carryOut(action, links(request)).response()
    }

    /// `publishedTracks` on this node: its host's, else history's.
    func publishedTracks(
        _ roomReference: String, _ reference: String, track: String?, url: String, query: String, _ links: ResourceLinks
    ) async throws -> RESTAnswer {
        let room = try await findRoom(roomReference)
        let participant = try await findParticipant(in: room, reference)
        let tracks: [PublishedTrackResource]
        if room.inHost {
            let (roomSID, sid) = (room.resource.sid, participant.sid)
            tracks = await host.read { service in
                (try? service.publishedTracks(room: roomSID, participant: sid)) ?? []
            }.map(PublishedTrackResource.init)
        } else {
            tracks = try await history.tracks(participantSID: ParticipantSID(unchecked: participant.sid))
                .map(PublishedTrackResource.init)
        }
        return try trackResponse(
            url: url, query: query, key: "published_tracks", tracks: tracks, sid: \.sid, track: track
        ) {
            $0.json(links)
        }
    }

    /// `GET …/SubscribedTracks[/{TrackSid}]`: what the participant receives
    /// now, which only the room's owner knows: read there (`carryOut`);
    /// nothing for a participant no longer in the room.
    func subscribedTracks<Context: RequestContext>(_ request: Request, _ context: Context, track: String?) async throws -> Response {
        let action = RoomAction.subscribedTracks(
            room: try pathParameter(context, "room"), participant: try pathParameter(context, "participant"),
            track: track, url: listURL(request), query: request.uri.query ?? "")
        return try await carryOut(action, links(request)).response()
    }

    /// `subscribedTracks` on this node's host.
    func subscribedTracks(
        _ roomReference: String, _ reference: String, track: String?, url: String, query: String, _ links: ResourceLinks
    ) async throws -> RESTAnswer {
        let room = try await findRoom(roomReference)
        let participant = try await findParticipant(in: room, reference)
        var tracks: [SubscribedTrackResource] = []
        if room.inHost {
            let (roomSID, sid) = (room.resource.sid, participant.sid)
            tracks = await host.read { service in
                (try? service.subscribedTracks(room: roomSID, participant: sid)) ?? []
            }.map(SubscribedTrackResource.init)
        }
        return try trackResponse(
            url: url, query: query, key: "subscribed_tracks", tracks: tracks, sid: \.track.sid.rawValue, track: track
        ) {
            $0.json(links)
        }
    }

    /// One track by SID (200 or 404 20404), or the paged list at `url`
    /// (the list's absolute URL) with the paging of `query`.
    private func trackResponse<Track, JSON: Encodable>(
        url: String, query: String, key: String, tracks: [Track], sid: KeyPath<Track, String>, track: String?,
        json: (Track) -> JSON
    ) throws -> RESTAnswer {
        if let track {
            guard let found = tracks.first(where: { $0[keyPath: sid] == track }) else {
                throw RESTError.notFound("The requested resource /Tracks/\(track) was not found")
            }
            return try JSONBody.answer(json(found))
        }
        let parameters: PageQuery
        do {
            parameters = try URLEncodedFormDecoder().decode(PageQuery.self, from: query)
        } catch {
            throw RESTError.invalidParameter("The query string is malformed: \(error)")
        }
        let paging = try Paging(parameters)
        let (items, hasNext) = paging.slice(tracks)
        return try JSONBody.answer(paging.body(
            key: key, items: items.map(json), hasNext: hasNext, url: url, filters: []))
    }

    /// `GET …/SubscribeRules`, read at the room's owner, which keeps them
    /// (`carryOut`). A participant whose session ended is known only from
    /// history, which keeps no rules: `rules` and the dates are null.
    func fetchSubscribeRules<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> Response {
        let action = RoomAction.fetchSubscribeRules(
            room: try pathParameter(context, "room"), participant: try pathParameter(context, "participant"))
        return try await carryOut(action, links(request)).response()
    }

    /// `fetchSubscribeRules` on this node's host.
    func subscribeRules(_ roomReference: String, _ reference: String) async throws -> RESTAnswer {
        let room = try await findRoom(roomReference)
        let participant = try await findParticipant(in: room, reference)
        let (roomSID, sid) = (room.resource.sid, participant.sid)
        if room.inHost {
            let live = await host.read { service in try? service.subscribeRules(room: roomSID, participant: sid) }
            if let live { return try JSONBody.answer(SubscribeRulesResource(live).json()) }
        }
        return try JSONBody.answer(SubscribeRulesResource(participantSID: sid, roomSID: roomSID).json())
    }

    /// `POST …/SubscribeRules` with `Rules` (a JSON array, PROTOCOL.md 3.4,
    /// checked as `updateSubscriptions` checks it): 200 with the new rules.
    /// Missing or malformed rules are 400 20001 with the reason. Carried
    /// out by the room's owner (`carryOut`).
    func updateSubscribeRules<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> Response {
        let form = try await form(SubscribeRulesForm.self, request, context)
        guard let text = form.rules?.text else { throw RESTError.invalidParameter("Rules is required") }
        let rules = try Self.decodeRules(text)
        let action = RoomAction.updateSubscribeRules(
            room: try pathParameter(context, "room"), participant: try pathParameter(context, "participant"), rules: rules)
        return try await carryOut(action, links(request)).response()
    }

    /// `updateSubscribeRules` on this node's host.
    func setSubscribeRules(_ roomReference: String, _ reference: String, _ rules: [SubscribeRule]) async throws -> RESTAnswer {
        let (room, sid) = try await currentParticipant(roomReference, reference)
        let roomSID = room.resource.sid
        let record = try await perform { (service: inout RoomService, now) throws(RoomError) in
            try service.setSubscribeRules(room: roomSID, participant: sid.rawValue, rules: rules, now: now)
        }
        return try JSONBody.answer(SubscribeRulesResource(record).json())
    }

    /// `POST …/Messages` (`Content`, `ContentType` default
    /// `application/json`): a server message to the participant, with the
    /// limits of PROTOCOL.md 3.5. 201 with the message; a refusal answers
    /// its status (400, 413, 429; 409 when the participant is not current).
    /// Carried out by the room's owner (`carryOut`).
    func sendMessage<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> Response {
        let form = try await form(MessageForm.self, request, context)
        let action = RoomAction.sendMessage(
            room: try pathParameter(context, "room"), participant: try pathParameter(context, "participant"),
            content: form.content?.text ?? "", contentType: form.contentType?.text ?? "application/json")
        return try await carryOut(action, links(request)).response()
    }

    /// `sendMessage` on this node's host.
    func sendMessage(
        _ roomReference: String, _ reference: String, content: String, contentType: String, _ links: ResourceLinks
    ) async throws -> RESTAnswer {
        let (room, sid) = try await currentParticipant(roomReference, reference)
        let message: RoomMessage
        do {
            message = try await host.perform { (service: inout RoomService, now) throws(MessageRefusal) in
                try service.sendServerMessage(to: sid, content: content, contentType: contentType, now: now)
            }
        } catch {
            throw RESTError(error)
        }
        return try JSONBody.answer(
            MessageResource(
                sid: message.sid.rawValue, accountSID: links.accountSID, roomSID: room.resource.sid,
                participantSID: sid.rawValue, content: message.content, contentType: message.contentType,
                sequenceNumber: message.sequenceNumber, dateCreated: message.timestamp),
            status: .created)
    }

    /// `POST …/MessageSubscriptions` with `Callback`: the participant's
    /// messages are POSTed there as JSON (`MessageCallback`) until its
    /// session ends. 201; a bad URL or an 11th subscription is 400 20001.
    /// Carried out by the room's owner (`carryOut`), which delivers them.
    func subscribeMessages<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> Response {
        let form = try await form(MessageSubscriptionForm.self, request, context)
        guard let callback = form.callback?.text else { throw RESTError.invalidParameter("Callback is required") }
        try Self.checkCallbackURL(callback, name: "Callback")
        let action = RoomAction.subscribeMessages(
            room: try pathParameter(context, "room"), participant: try pathParameter(context, "participant"),
            callback: callback)
        return try await carryOut(action, links(request)).response()
    }

    /// `subscribeMessages` on this node's host.
    func subscribeMessages(
        _ roomReference: String, _ reference: String, callback: String, _ links: ResourceLinks
    ) async throws -> RESTAnswer {
        let (room, sid) = try await currentParticipant(roomReference, reference)
        let subscribed: Bool
        do {
            subscribed = try await messageSubscriptions.subscribe(participant: sid.rawValue, callback: callback)
        } catch {
            throw RESTError(status: 503, code: ProtocolErrorCode.signalingServerBusy.rawValue,
                            message: "The cluster's database is unavailable; try again")
        }
        guard subscribed else {
            throw RESTError.invalidParameter("At most \(MessageSubscriptions.maxPerParticipant) message subscriptions per participant")
        }
        return try JSONBody.answer(
            MessageSubscriptionResource(
                accountSID: links.accountSID, roomSID: room.resource.sid, participantSID: sid.rawValue,
                callback: callback, dateCreated: Date()),
            status: .created)
    }

    /// `Rules` as JSON text through Rooms' Codable rule, the shape and checks
    /// of `updateSubscriptions` (PROTOCOL.md 3.4), capped at 64 KiB like a
    /// signaling frame. The reason names the rule and field at fault.
    static func decodeRules(_ text: String) throws(RESTError) -> [SubscribeRule] {
        guard text.utf8.count <= 65_536 else { throw RESTError.invalidParameter("Rules are invalid: over 65536 bytes") }
        do {
            return try JSONDecoder().decode([SubscribeRule].self, from: Data(text.utf8))
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            throw RESTError.invalidParameter("Rules are invalid: not JSON")
        } catch let error as DecodingError {
            throw RESTError.invalidParameter("Rules are invalid: \(Self.reason(error))")
        } catch {
            throw RESTError.invalidParameter("Rules are invalid: \(error)")
        }
    }

    /// `Rules[1].kind: must be one of "audio", "video"`.
    private static func reason(_ error: DecodingError) -> String {
        let (path, problem): ([any CodingKey], String) =
            switch error {
            case .typeMismatch(let type, let context): (context.codingPath, "has the wrong type (expected \(type))")
            case .keyNotFound(let key, let context): (context.codingPath + [key], "is required")
            case .valueNotFound(_, let context): (context.codingPath, "is required")
            case .dataCorrupted(let context): (context.codingPath, context.debugDescription)
            @unknown default: ([], "\(error)")
            }
        let field = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return "Rules\(field): \(problem)"
    }
}
