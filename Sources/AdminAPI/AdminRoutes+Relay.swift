import Foundation
import Hummingbird
import Node
import Rooms

/// A REST action on a room (PROTOCOL.md section 8: carried out by the node
/// that owns the room), or a read of what the owner knows first or alone
/// (publications, subscribe rules, subscribed tracks, media stats), with what the route read from
/// the request: the same value runs here (``AdminRoutes/execute(_:_:)``) or
/// travels to the owner.
enum RoomAction: Codable, Sendable, Equatable {
    /// `POST /v1/Rooms/{RoomSid}`.
    case updateRoom(room: String, status: String?)
    /// `POST …/Participants/{ParticipantSid}`.
    case updateParticipant(room: String, participant: String, status: String?)
    /// `POST …/SubscribeRules`, the rules already checked.
    case updateSubscribeRules(room: String, participant: String, rules: [SubscribeRule])
    /// `POST …/Messages`.
    case sendMessage(room: String, participant: String, content: String, contentType: String)
    /// `POST …/MessageSubscriptions`, the URL already checked.
    case subscribeMessages(room: String, participant: String, callback: String)
    /// `GET …/SubscribeRules`.
    case fetchSubscribeRules(room: String, participant: String)
    /// `GET …/PublishedTracks[/{TrackSid}]`: the list's absolute URL and query as asked.
    case publishedTracks(room: String, participant: String, track: String?, url: String, query: String)
    /// `GET …/SubscribedTracks[/{TrackSid}]`: the list's absolute URL and query as asked.
    case subscribedTracks(room: String, participant: String, track: String?, url: String, query: String)
    /// `GET /v1/Rooms/{RoomSid}/Stats`.
    case roomStats(room: String)
    /// `POST /v1/Rooms` with a unique name another node owns (`create`).
    case createRoom(RoomCreation)

    /// The room reference (SID or unique name).
    var room: String {
        switch self {
        case .updateRoom(let room, _), .updateParticipant(let room, _, _), .updateSubscribeRules(let room, _, _),
            .sendMessage(let room, _, _, _), .subscribeMessages(let room, _, _), .fetchSubscribeRules(let room, _),
            .publishedTracks(let room, _, _, _, _), .subscribedTracks(let room, _, _, _, _), .roomStats(let room):
            room
        case .createRoom(let creation): creation.uniqueName ?? ""
        }
    }

    /// The same action on the room of this reference.
    func on(room: String) -> RoomAction {
        switch self {
        case .updateRoom(_, let status): .updateRoom(room: room, status: status)
        case .updateParticipant(_, let participant, let status):
            .updateParticipant(room: room, participant: participant, status: status)
        case .updateSubscribeRules(_, let participant, let rules):
            .updateSubscribeRules(room: room, participant: participant, rules: rules)
        case .sendMessage(_, let participant, let content, let contentType):
            .sendMessage(room: room, participant: participant, content: content, contentType: contentType)
        case .subscribeMessages(_, let participant, let callback):
            .subscribeMessages(room: room, participant: participant, callback: callback)
        case .fetchSubscribeRules(_, let participant): .fetchSubscribeRules(room: room, participant: participant)
        case .publishedTracks(_, let participant, let track, let url, let query):
            .publishedTracks(room: room, participant: participant, track: track, url: url, query: query)
        case .subscribedTracks(_, let participant, let track, let url, let query):
            .subscribedTracks(room: room, participant: participant, track: track, url: url, query: query)
        case .roomStats: .roomStats(room: room)
        case .createRoom: self  // relayed by its unique name, which is its reference
        }
    }
}

/// What travels to the owner: the action and the base of the absolute URLs
/// the asker would write (its `--public-url` or the request's Host), so the
/// owner's answer is the asker's own, byte for byte.
struct RelayedRoomAction: Codable, Sendable {
    var action: RoomAction
    var base: String
}

extension AdminRoutes {
    /// Carries out `action`: here when this node hosts the room (or nobody
    /// hosts it: the local rules answer, 53112, 53204…), else at the room's
    /// owner through the relay, whose answer is returned as it is. An owner
    /// that is not live, or silent for 5 s, or a database that is away is
    /// 503 53006.
    ///
    /// A room in progress elsewhere is found in the database, by SID or
    /// name; a name the database does not show in progress (yet: the
    /// owner's records reach it a little after the owner acts) is carried
    /// to the name's owner when another node has it, so a room created a
    /// moment ago is acted on too.
    func carryOut(_ action: RoomAction, _ links: ResourceLinks) async throws -> RESTAnswer {
        if relay != nil, let target = await relayTarget(action.room),
            let answer = try await relayed(action.on(room: target.reference), to: target.uniqueName, links)
        {
            return answer
        }
        return try await execute(action, links)
    }

    /// `action` carried out by the owner of the unique name `room`: its
    /// answer; nil when this node is the owner (or there is no relay).
    /// An owner that cannot be reached is 503 53006.
    func relayed(_ action: RoomAction, to room: String, _ links: ResourceLinks) async throws -> RESTAnswer? {
        guard let relay else { return nil }
        let request = String(decoding: try JSONEncoder().encode(RelayedRoomAction(action: action, base: links.base)), as: UTF8.self)
        switch await relay.relay(room: room, request: request) {
        case .local:
            return nil
        case .answered(let text):
            guard let answer = RESTAnswer(text: text) else {
                throw RESTError(
                    status: 500, code: RESTError.internalError.code,
                    message: "The node that hosts the room carried out the action but its answer could not be read")
            }
            return answer
        case .unavailable(let reason):
            throw RESTError(
                status: 503, code: ProtocolErrorCode.signalingServerBusy.rawValue,
                message: "The node that hosts the room cannot carry out the action: \(reason); try again")
        }
    }

    /// Where an action on the room of this reference may have to go: its
    /// unique name (the placement key) and the reference the owner gets (the
    /// SID of the room in progress, else the name, which the name's owner,
    /// if another node, resolves); nil when the room is here, or the
    /// reference is a SID and not of a room in progress (the local rules
    /// answer).
    private func relayTarget(_ reference: String) async -> (uniqueName: String, reference: String)? {
        if let room = try? await findRoom(reference) {
            if room.inHost { return nil }
            if room.resource.status == RoomStatus.inProgress.rawValue {
                return (room.resource.uniqueName, room.resource.sid)
            }
        }
        // Not in progress as far as the database knows: by name, its owner may know better.
        guard RoomSID(validating: reference) == nil else { return nil }
        return (reference, reference)
    }

    /// The owner's side: a relayed action, carried out here; the answer's
    /// text (`RESTAnswer.text`), an error's included.
    public func answerRelayed(_ request: String) async -> String {
        guard let relayed = try? JSONDecoder().decode(RelayedRoomAction.self, from: Data(request.utf8)) else {
            return RESTError.invalidParameter("The relayed action could not be read").answer().text
        }
        let links = ResourceLinks(base: relayed.base, accountSID: configuration.accountSID)
        do {
            return try await execute(relayed.action, links).text
        } catch let error as RESTError {
            return error.answer().text
        } catch {
            return RESTError.internalError.answer().text
        }
    }

    /// Carries out `action` on this node's host, with the checks and the
    /// answer of its route.
    func execute(_ action: RoomAction, _ links: ResourceLinks) async throws -> RESTAnswer {
        let answer: RESTAnswer
        switch action {
        case .updateRoom(let room, let status):
            answer = try await completeRoom(room, status: status, links)
        case .updateParticipant(let room, let participant, let status):
            answer = try await removeParticipant(room, participant, status: status, links)
        case .updateSubscribeRules(let room, let participant, let rules):
            answer = try await setSubscribeRules(room, participant, rules)
        case .sendMessage(let room, let participant, let content, let contentType):
            answer = try await sendMessage(room, participant, content: content, contentType: contentType, links)
        case .subscribeMessages(let room, let participant, let callback):
            answer = try await subscribeMessages(room, participant, callback: callback, links)
        case .fetchSubscribeRules(let room, let participant):
            return try await subscribeRules(room, participant)
        case .publishedTracks(let room, let participant, let track, let url, let query):
            return try await publishedTracks(room, participant, track: track, url: url, query: query, links)
        case .subscribedTracks(let room, let participant, let track, let url, let query):
            return try await subscribedTracks(room, participant, track: track, url: url, query: query, links)
        case .roomStats(let room):
            return try await roomStats(room, links)
        case .createRoom(let creation):
            // Relayed here by the node asked: this node owns the name. Caught up in `create`.
            return try await create(creation, links, relayedHere: true)
        }
        // The records of what changed reach the database before the answer,
        // so a read at any node that follows it finds them.
        try? await history.caughtUp()
        return answer
    }
}
