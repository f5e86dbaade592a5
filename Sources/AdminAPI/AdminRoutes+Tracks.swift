import Foundation
import Hummingbird
import Rooms

extension AdminRoutes {
    /// `GET …/PublishedTracks[/{TrackSid}]`: the participant's current
    /// publications (none once it left). An unknown track is 404 20404.
    func publishedTracks<Context: RequestContext>(_ request: Request, _ context: Context, track: String?) async throws -> Response {
        let room = try await findRoom(context)
        let participant = try await findParticipant(in: room, context)
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
        return try trackResponse(request, key: "published_tracks", tracks: tracks, sid: \.sid, track: track) {
            $0.json(links(request))
        }
    }

    /// `GET …/SubscribedTracks[/{TrackSid}]`: what the participant receives
    /// now; nothing for a participant no longer on this node.
    func subscribedTracks<Context: RequestContext>(_ request: Request, _ context: Context, track: String?) async throws -> Response {
        let room = try await findRoom(context)
        let participant = try await findParticipant(in: room, context)
        var tracks: [SubscribedTrackResource] = []
        if room.inHost {
            let (roomSID, sid) = (room.resource.sid, participant.sid)
            tracks = await host.read { service in
                (try? service.subscribedTracks(room: roomSID, participant: sid)) ?? []
            }.map(SubscribedTrackResource.init)
        }
        return try trackResponse(request, key: "subscribed_tracks", tracks: tracks, sid: \.track.sid.rawValue, track: track) {
            $0.json(links(request))
        }
    }

    /// One track by SID (200 or 404 20404), or the paged list.
    private func trackResponse<Track, JSON: Encodable>(
        _ request: Request, key: String, tracks: [Track], sid: KeyPath<Track, String>, track: String?,
        json: (Track) -> JSON
    ) throws -> Response {
        if let track {
            guard let found = tracks.first(where: { $0[keyPath: sid] == track }) else {
                throw RESTError.notFound("The requested resource /Tracks/\(track) was not found")
            }
            return try JSONBody.response(json(found))
        }
        let paging = try Paging(query(PageQuery.self, request))
        let (items, hasNext) = paging.slice(tracks)
        return try JSONBody.response(paging.body(
            key: key, items: items.map(json), hasNext: hasNext, url: listURL(request), filters: []))
    }

    /// `GET …/SubscribeRules`. A participant whose session ended is known
    /// only from history, which keeps no rules: `rules` and the dates are null.
    func fetchSubscribeRules<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> Response {
        let room = try await findRoom(context)
        let participant = try await findParticipant(in: room, context)
        let (roomSID, sid) = (room.resource.sid, participant.sid)
        if room.inHost {
            let live = await host.read { service in try? service.subscribeRules(room: roomSID, participant: sid) }
            if let live { return try JSONBody.response(SubscribeRulesResource(live).json()) }
        }
        return try JSONBody.response(SubscribeRulesResource(participantSID: sid, roomSID: roomSID).json())
    }

    /// `POST …/SubscribeRules` with `Rules` (a JSON array, PROTOCOL.md 3.4,
    /// checked as `updateSubscriptions` checks it): 200 with the new rules.
    /// Missing or malformed rules are 400 20001 with the reason.
    func updateSubscribeRules<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> Response {
        let form = try await form(SubscribeRulesForm.self, request, context)
        guard let text = form.rules?.text else { throw RESTError.invalidParameter("Rules is required") }
        let rules = try Self.decodeRules(text)
        let (room, sid) = try await currentParticipant(context)
        let roomSID = room.resource.sid
        let record = try await perform { (service: inout RoomService, now) throws(RoomError) in
            try service.setSubscribeRules(room: roomSID, participant: sid.rawValue, rules: rules, now: now)
        }
        return try JSONBody.response(SubscribeRulesResource(record).json())
    }

    /// `POST …/Messages` (`Content`, `ContentType` default
    /// `application/json`): a server message to the participant, with the
    /// limits of PROTOCOL.md 3.5. 201 with the message; a refusal answers
    /// its status (400, 413, 429; 409 when the participant is not current).
    func sendMessage<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> Response {
        let form = try await form(MessageForm.self, request, context)
        let (room, sid) = try await currentParticipant(context)
        let content = form.content?.text ?? ""
        let contentType = form.contentType?.text ?? "application/json"
        let message: RoomMessage
        do {
            message = try await host.perform { (service: inout RoomService, now) throws(MessageRefusal) in
                try service.sendServerMessage(to: sid, content: content, contentType: contentType, now: now)
            }
        } catch {
            throw RESTError(error)
        }
        let links = links(request)
        return try JSONBody.response(
            MessageResource(
                sid: message.sid.rawValue, accountSID: links.accountSID, roomSID: room.resource.sid,
                participantSID: sid.rawValue, content: message.content, contentType: message.contentType,
                sequenceNumber: message.sequenceNumber, dateCreated: message.timestamp),
            status: .created)
    }

    /// `POST …/MessageSubscriptions` with `Callback`: the participant's
    /// messages are POSTed there as JSON (`MessageCallback`) until its
    /// session ends. 201; a bad URL or an 11th subscription is 400 20001.
    func subscribeMessages<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> Response {
        let form = try await form(MessageSubscriptionForm.self, request, context)
        guard let callback = form.callback?.text else { throw RESTError.invalidParameter("Callback is required") }
        try Self.checkCallbackURL(callback, name: "Callback")
        let (room, sid) = try await currentParticipant(context)
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
        let links = links(request)
        return try JSONBody.response(
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
