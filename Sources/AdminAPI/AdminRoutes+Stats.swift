import Foundation
import Hummingbird
import Node
import Rooms

extension AdminRoutes {
    /// `GET /v1/Rooms/{RoomSid}/Stats`: the room's live media figures
    /// (`RoomStatsResource`). `{RoomSid}` is a SID or a unique name as for
    /// the room itself; an unknown room is 404 53106. A room that ended, or
    /// that only history knows, has no live participants: an empty list.
    /// Read at the room's owner, whose media it is (`carryOut`).
    func roomStats<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> Response {
        try await carryOut(.roomStats(room: try pathParameter(context, "room")), links(request)).response()
    }

    /// `roomStats` on this node's host.
    func roomStats(_ reference: String, _ links: ResourceLinks) async throws -> RESTAnswer {
        let room = try await findRoom(reference)
        let sid = RoomSID(unchecked: room.resource.sid)
        var participants: [RoomStatsResource.Participant] = []
        var publications: [TrackSID: PublishedTrackRecord] = [:]
        if room.inHost && room.resource.status == RoomStatus.inProgress.rawValue {
            let live = await host.read { service -> ([ParticipantRecord], [PublishedTrackRecord]) in
                let present = (try? service.participants(inRoom: sid.rawValue)) ?? []
                return (present, present.flatMap { service.publications(of: $0.sid) })
            }
            let media = await self.media?.roomStatistics(room: sid) ?? RoomMediaFigures()
            participants = live.0.map { RoomStatsResource.Participant(record: $0, media: media.participants[$0.sid]) }
            for publication in live.1 { publications[publication.sid] = publication }
        }
        let resource = RoomStatsResource(
            room: room.resource, participants: participants, publications: publications, generated: Date())
        return try JSONBody.answer(resource.json(links))
    }
}
