import Foundation
import Rooms
import Testing

/// The `publishedTrackRecord` / `publishedTrackRemoved` events that keep the
/// history's PublishedTracks equal to the current publications.
@Suite struct PublishedTrackHistoryTests {
    /// Replays the track events onto a map, as the history store does.
    struct Mirror {
        var tracks: [TrackSID: PublishedTrackRecord] = [:]

        mutating func apply(_ events: [RoomEvent]) {
            for event in events {
                switch event {
                case .publishedTrackRecord(let record): tracks[record.sid] = record
                case .publishedTrackRemoved(_, _, let track): tracks[track] = nil
                default: break
                }
            }
        }
    }

    /// The mirror equals what the service itself reports for `sid`.
    func expectMirror(_ mirror: Mirror, _ service: RoomService, _ sid: ParticipantSID, sourceLocation: SourceLocation = #_sourceLocation) {
        let live = service.publications(of: sid)
        let mirrored = mirror.tracks.values.filter { $0.participantSID == sid }
        #expect(Set(mirrored.map(\.sid)) == Set(live.map(\.sid)), sourceLocation: sourceLocation)
        for record in live {
            #expect(mirror.tracks[record.sid]?.enabled == record.enabled, "\(record.name)", sourceLocation: sourceLocation)
            #expect(mirror.tracks[record.sid]?.name == record.name, sourceLocation: sourceLocation)
            #expect(mirror.tracks[record.sid]?.kind == record.kind, sourceLocation: sourceLocation)
            #expect(mirror.tracks[record.sid]?.roomSID == record.roomSID, sourceLocation: sourceLocation)
        }
    }

    @Test func publishRecordsNewTracksAndRemovesDroppedOnes() throws {
        var service = makeService()
        var mirror = Mirror()
        let alice = try join(&service, "alice")
        let first = try service.publish(participant: alice.sid, tracks: [
            TrackRequest(mid: "0", name: "mic", kind: "audio"), TrackRequest(mid: "1", name: "camera", kind: "video", enabled: false),
        ], now: at(1))
        let records = first.events.compactMap { if case .publishedTrackRecord(let r) = $0 { r } else { nil } }
        #expect(records.map(\.name) == ["mic", "camera"])
        #expect(records.map(\.enabled) == [true, false])
        #expect(records.allSatisfy { $0.participantSID == alice.sid && $0.dateCreated == at(1) })
        mirror.apply(first.events)
        expectMirror(mirror, service, alice.sid)

        // mic dropped, screen added; camera kept with nothing changed: no event for it.
        let second = try service.publish(participant: alice.sid, tracks: [
            TrackRequest(mid: "1", name: "camera", kind: "video"), TrackRequest(mid: "2", name: "screen", kind: "video"),
        ], now: at(2))
        let removed = second.events.compactMap { if case .publishedTrackRemoved(_, let p, let t) = $0 { (p, t) } else { nil } }
        #expect(removed.map(\.1) == [first.value[0].sid])
        #expect(removed.allSatisfy { $0.0 == alice.sid })
        let added = second.events.compactMap { if case .publishedTrackRecord(let r) = $0 { r.name } else { nil } }
        #expect(added == ["screen"])
        mirror.apply(second.events)
        expectMirror(mirror, service, alice.sid)

        // The same publish again says nothing to history either.
        let again = try service.publish(participant: alice.sid, tracks: [
            TrackRequest(mid: "1", name: "camera", kind: "video"), TrackRequest(mid: "2", name: "screen", kind: "video"),
        ], now: at(3))
        #expect(!again.events.contains { if case .publishedTrackRecord = $0 { true } else { false } })
        #expect(!again.events.contains { if case .publishedTrackRemoved = $0 { true } else { false } })
    }

    @Test func enableDisableAndInterruptionsRecordTheEffectiveState() throws {
        var service = makeService()
        var mirror = Mirror()
        let alice = try join(&service, "alice")
        let (_, _, joinEvents) = try join(&service, "bob")
        mirror.apply(joinEvents)
        let outcome = try service.publish(participant: alice.sid, tracks: [TrackRequest(mid: "0", name: "camera", kind: "video")], now: at(1))
        mirror.apply(outcome.events)
        let camera = outcome.value[0].sid

        let off = try service.setTrackEnabled(participant: alice.sid, track: camera, enabled: false, now: at(2))
        let offRecords = off.compactMap { if case .publishedTrackRecord(let r) = $0 { r } else { nil } }
        #expect(offRecords.map(\.enabled) == [false])
        #expect(offRecords.first?.dateUpdated == at(2))
        mirror.apply(off)
        expectMirror(mirror, service, alice.sid)

        let on = try service.setTrackEnabled(participant: alice.sid, track: camera, enabled: true, now: at(3))
        #expect(on.compactMap { if case .publishedTrackRecord(let r) = $0 { r.enabled } else { nil } } == [true])
        mirror.apply(on)

        // A camera interruption disables it (effective state) with reason interrupted...
        let began = try service.interruption(participant: alice.sid, kind: .camera, state: .began, now: at(4))
        #expect(began.compactMap { if case .publishedTrackRecord(let r) = $0 { r } else { nil } }.map { ($0.enabled, $0.publisherEnabled) }
            .elementsEqual([(false, true)], by: ==))
        mirror.apply(began)
        expectMirror(mirror, service, alice.sid)
        // ...enabling it meanwhile changes nothing effective: nothing recorded.
        #expect(try service.setTrackEnabled(participant: alice.sid, track: camera, enabled: false, now: at(5)).isEmpty)
        _ = try service.setTrackEnabled(participant: alice.sid, track: camera, enabled: true, now: at(6))
        let ended = try service.interruption(participant: alice.sid, kind: .camera, state: .ended, now: at(7))
        #expect(ended.compactMap { if case .publishedTrackRecord(let r) = $0 { r.enabled } else { nil } } == [true])
        mirror.apply(ended)
        expectMirror(mirror, service, alice.sid)
    }

    @Test func unpublishRemoves() throws {
        var service = makeService()
        let alice = try join(&service, "alice")
        let tracks = try publish(&service, alice.sid, [("mic", "audio"), ("camera", "video")])
        let events = try service.unpublish(participant: alice.sid, track: tracks["mic"]!, now: at(1))
        let removed = events.compactMap { if case .publishedTrackRemoved(let room, let p, let t) = $0 { (room, p, t) } else { nil } }
        #expect(removed.count == 1)
        #expect(removed.first?.1 == alice.sid)
        #expect(removed.first?.2 == tracks["mic"])
        #expect(removed.first?.0 == service.participantRecord(alice.sid)?.roomSID)
    }

    /// Every way a session ends takes its publications out of history.
    @Test(arguments: ["leave", "window", "removed", "replaced", "completed"])
    func anEndingParticipantRemovesEveryPublication(how: String) throws {
        var service = makeService()
        var mirror = Mirror()
        let alice = try join(&service, "alice")
        let outcome = try service.publish(participant: alice.sid, tracks: [
            TrackRequest(mid: "0", name: "mic", kind: "audio"), TrackRequest(mid: "1", name: "camera", kind: "video"),
        ], now: at(1))
        mirror.apply(outcome.events)
        #expect(mirror.tracks.count == 2)
        var events: [RoomEvent]
        switch how {
        case "leave":
            events = service.leave(participant: alice.sid, now: at(2))
        case "window":
            events = service.drop(participant: alice.sid, now: at(2))
            #expect(!events.contains { if case .publishedTrackRemoved = $0 { true } else { false } }, "a drop keeps publications")
            events += service.tick(now: at(3_600))
        case "removed":
            events = try service.removeParticipant(room: "standup", participant: "alice", now: at(2)).events
        case "replaced":
            events = try join(&service, "alice", now: at(2)).events
        default:
            events = try service.completeRoom("standup", now: at(2)).events
        }
        let removed = Set(events.compactMap { if case .publishedTrackRemoved(_, let p, let t) = $0, p == alice.sid { t } else { nil } })
        #expect(removed == Set(outcome.value.map(\.sid)))
        mirror.apply(events)
        #expect(mirror.tracks.isEmpty)
    }
}
