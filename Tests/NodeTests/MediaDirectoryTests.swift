import Foundation
import Logging
import MediaIO
import Rooms
import Testing
import VroomTesting

@testable import Node

/// The SID/handle directory between Rooms and the media plane: stable,
/// never reused, and bounded by what is live.
@Suite struct MediaDirectoryTests {
    @Test func handlesAreStablePerSIDAndTranslateBack() {
        var generator = SeededGenerator(seed: 12)
        var directory = MediaDirectory()
        let room = RoomSID.random(using: &generator)
        let (alice, bob) = (ParticipantSID.random(using: &generator), ParticipantSID.random(using: &generator))
        let (a, roomA) = directory.handles(participant: alice, room: room)
        let (b, roomB) = directory.handles(participant: bob, room: room)
        #expect(roomA == roomB)
        #expect(a != b)
        let again = directory.handles(participant: alice, room: room)
        #expect(again.0 == a && again.1 == roomA)
        #expect(directory.participant(a) == alice)
        #expect(directory.participant(b) == bob)
        #expect(directory.room(roomA) == room)
    }

    @Test func aRenegotiationForgetsTheTracksThatWent() {
        var generator = SeededGenerator(seed: 13)
        var directory = MediaDirectory()
        let (room, alice) = (RoomSID.random(using: &generator), ParticipantSID.random(using: &generator))
        let (mic, camera) = (TrackSID.random(using: &generator), TrackSID.random(using: &generator))
        _ = directory.handles(participant: alice, room: room)
        let first = directory.setPublished([mic, camera], by: alice)
        let second = directory.setPublished([mic], by: alice)
        #expect(second[mic] == first[mic], "a kept track keeps its handle")
        #expect(directory.trackHandle(camera) == nil)
        #expect(first[camera].flatMap { directory.track($0) } == nil)
        #expect(directory.removeTrack(mic, of: alice) == first[mic])
        #expect(directory.trackHandle(mic) == nil)
    }

    /// The room announces a track (and a subscriber's offer is built) before
    /// the publisher's answer is applied: both sides get the same handle,
    /// and it goes with the publisher.
    @Test func aTrackOfferedBeforeItsPublishIsAppliedHasOneHandle() {
        var generator = SeededGenerator(seed: 16)
        var directory = MediaDirectory()
        let room = RoomSID.random(using: &generator)
        let (alice, bob) = (ParticipantSID.random(using: &generator), ParticipantSID.random(using: &generator))
        let mic = TrackSID.random(using: &generator)
        _ = directory.handles(participant: bob, room: room)
        let offered = directory.subscribedTrackHandle(mic, publisher: alice, room: room)
        _ = directory.handles(participant: alice, room: room)
        let published = directory.setPublished([mic], by: alice)
        #expect(published[mic] == offered)
        _ = directory.removeParticipant(alice)
        #expect(directory.trackHandle(mic) == nil)
    }

    @Test func theRoomGoesWithItsLastParticipantAndHandlesAreNeverReused() throws {
        var generator = SeededGenerator(seed: 14)
        var directory = MediaDirectory()
        let room = RoomSID.random(using: &generator)
        let (alice, bob) = (ParticipantSID.random(using: &generator), ParticipantSID.random(using: &generator))
        let (a, roomHandle) = directory.handles(participant: alice, room: room)
        _ = directory.handles(participant: bob, room: room)
        _ = directory.setPublished([TrackSID.random(using: &generator)], by: alice)
        #expect(directory.removeParticipant(alice) == a)
        #expect(directory.room(roomHandle) == room, "bob is still in the room")
        #expect(directory.participant(a) == nil, "a late event of alice finds no SID")
        _ = directory.removeParticipant(bob)
        #expect(directory.room(roomHandle) == nil)
        #expect(directory.count == 0)
        let (again, roomAgain) = directory.handles(participant: alice, room: room)
        #expect(again != a && roomAgain != roomHandle, "a handle, once given, is never given again")
    }

    /// 2,000 participants come and go through one room of a real media
    /// plane: the directory and the plane's per-participant state end where
    /// they started (DESIGN.md: room state bounded by what is live).
    @Test func churnLeavesNothingBehind() async throws {
        var generator = SeededGenerator(seed: 15)
        let plane = try MediaPlane(
            configuration: MediaConfiguration(bindAddress: "127.0.0.1", basePort: 0, workers: 1),
            logger: Logger(label: "test.media"), events: { _ in })
        plane.start()
        let media = RoomMedia(plane: plane)
        let room = RoomSID.random(using: &generator)
        let stayer = ParticipantSID.random(using: &generator)
        media.handle([.remoteAudioPaused(room: room, participant: stayer, paused: false)])
        let baseline = (media.directorySize, plane.participantCount)
        for _ in 0..<2_000 {
            let visitor = ParticipantSID.random(using: &generator)
            _ = try media.subscriberOffer(
                participant: visitor, room: room,
                slots: [SubscriberSlotRequest(mid: "0", kind: .audio, track: nil)])
            media.handle([.remoteAudioPaused(room: room, participant: visitor, paused: true)])
            media.handle([.participantRemoved(room: room, participant: visitor, reason: .left)])
        }
        #expect(media.directorySize == baseline.0)
        #expect(plane.participantCount == baseline.1)
        await plane.stop()
    }
}
