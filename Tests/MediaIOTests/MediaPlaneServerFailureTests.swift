import Packets
import Rooms
import SDP
import SFU
import Testing
import VroomTestPeer
import WebRTC

@testable import MediaIO
@testable import Node

/// When the server cannot set up its own side of a connection, the caller
/// learns it as 53401 ServerLocalDescFailed (PROTOCOL.md section 4) instead
/// of a log line, and the next attempt starts afresh (issue 11, item 5).
/// No client input reaches these failures (a hostile description is 53403
/// before anything is set up), so the test provokes one on the worker
/// itself: the connection number the plane hands out next is already taken
/// in the room's router.
extension MediaPlaneScenarios {
@Suite struct MediaPlaneServerFailureTests {
    /// Takes the plane's next transport number in the room's router.
    static func occupyNextTransport(_ session: PlaneSession, as role: MediaEvent.Connection) async {
        let next = TransportID(session.mediaPlane.state.withLock { $0.nextTransport })
        let room = session.plane.handles(participant: session.publisherSID, room: session.room).room
        await session.mediaPlane.workers[0].perform { rooms in
            let router = rooms.router(for: room)
            switch role {
            case .publisher: try? router.addPublisher(transport: next, transportCCExtensionID: nil, midExtensionID: nil)
            case .subscriber: try? router.addSubscriber(transport: next, midExtensionID: nil, transportCCExtensionID: nil)
            }
        }
    }

    @Test func aSubscriberConnectionTheServerCannotCreateIs53401() async throws {
        let session = try PlaneSession(seed: 81)
        try await session.publish()
        await Self.occupyNextTransport(session, as: .publisher)
        let offer = try #require(
            try session.plane.subscriberOffer(
                participant: session.subscriberSID, room: session.room,
                slots: [
                    SubscriberSlotRequest(
                        mid: "0", kind: .audio, track: SubscribedTrackRef(sid: session.audioTrack, publisher: session.publisherSID))
                ]))
        let answer = try session.subscriber.subscriberAnswer(to: offer)
        let error = await #expect(throws: NegotiationError.self) {
            try await session.plane.applySubscriberAnswer(participant: session.subscriberSID, sdp: answer)
        }
        #expect(error?.code == 53401)
        // The offer is used up: answering it again is the client's mistake.
        let again = await #expect(throws: NegotiationError.self) {
            try await session.plane.applySubscriberAnswer(participant: session.subscriberSID, sdp: answer)
        }
        #expect(again?.code == 53403)

        // A fresh offer and answer create the connection, and media flows.
        try await session.subscribe()
        try await session.expectForwarding()
        await session.stop()
    }

    @Test func aPublisherConnectionTheServerCannotCreateIs53401() async throws {
        let session = try PlaneSession(seed: 82)
        await Self.occupyNextTransport(session, as: .subscriber)
        let offer = session.publisher.publishOffer(audioSSRC: session.source.audioSSRC, videoSSRC: session.source.videoSSRC)
        let pending = try session.plane.answerPublish(
            participant: session.publisherSID, room: session.room, offer: offer, trackMIDs: ["0", "1"])
        let tracks = [
            PublishedTrackAssignment(mid: "0", sid: session.audioTrack, name: "mic", kind: .audio, enabled: true, isNew: true),
            PublishedTrackAssignment(mid: "1", sid: session.videoTrack, name: "camera", kind: .video, enabled: true, isNew: true),
        ]
        let error = await #expect(throws: NegotiationError.self) {
            try await session.plane.applyPublish(
                participant: session.publisherSID, room: session.room, pending, tracks: tracks)
        }
        #expect(error?.code == 53401)

        // Nothing was left half made: the next publish creates the
        // connection, and B receives A's media.
        try await session.publish()
        try await session.subscribe()
        try await session.expectForwarding()
        await session.stop()
    }
}
}
