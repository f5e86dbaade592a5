import Foundation
import Logging
import MediaIO
import Rooms
import Testing
import VroomTesting

@testable import Node

/// The media plane's layer events (PROTOCOL.md 7) in handles come out in
/// SIDs, addressed to whom they concern: a switch-off to its subscriber,
/// the active layers to the track's publisher; an event about someone
/// gone is dropped.
@Suite struct LayerEventTranslationTests {
    @Test func layerEventsReachTheirParticipantInSIDs() async throws {
        let plane = try MediaPlane(
            configuration: MediaConfiguration(bindAddress: "127.0.0.1", basePort: 0, workers: 1),
            logger: Logger(label: "test.media"), events: { _ in })
        plane.start()
        let media = RoomMedia(plane: plane)
        var generator = SeededGenerator(seed: 31)
        let room = RoomSID.random(using: &generator)
        let (alice, bob) = (ParticipantSID.random(using: &generator), ParticipantSID.random(using: &generator))
        let camera = TrackSID.random(using: &generator)
        // bob asks for alice's camera before anything was negotiated.
        media.updatePreferences(subscriber: bob, room: room, track: camera, publisher: alice) { $0.switchedOff = true }
        let (bobHandle, roomHandle) = media.handles(participant: bob, room: room)
        let cameraHandle = try #require(media.trackHandle(camera))

        #expect(
            media.translate(.trackSwitchedOff(room: roomHandle, subscriber: bobHandle, track: cameraHandle, reason: .disabledBySubscriber))
                == .trackSwitchedOff(subscriber: bob, track: camera, reason: .disabledBySubscriber))
        #expect(
            media.translate(.trackSwitchedOn(room: roomHandle, subscriber: bobHandle, track: cameraHandle))
                == .trackSwitchedOn(subscriber: bob, track: camera))
        #expect(
            media.translate(.publisherLayers(room: roomHandle, track: cameraHandle, active: ["q", "h"]))
                == .publisherLayers(publisher: alice, track: camera, active: ["q", "h"]))

        media.remove(participant: bob)
        #expect(media.translate(.trackSwitchedOn(room: roomHandle, subscriber: bobHandle, track: cameraHandle)) == nil)
        media.remove(participant: alice)
        #expect(media.translate(.publisherLayers(room: roomHandle, track: cameraHandle, active: ["q"])) == nil)
        await plane.stop()
    }
}
