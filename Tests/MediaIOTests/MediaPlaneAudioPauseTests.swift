import Packets
import Rooms
import Testing
import VroomTestPeer

@testable import MediaIO

/// An audio interruption pauses the audio forwarded to the interrupted
/// participant (PROTOCOL.md 3.3), also when it began before that
/// participant's subscriber connection existed: the connection starts
/// paused (issue 11, item 5). A real plane, real peers, real SRTP.
extension MediaPlaneScenarios {
@Suite struct MediaPlaneAudioPauseTests {
    @Test func anInterruptionBeforeTheSubscriberConnectionExistsStartsItPaused() async throws {
        let session = try PlaneSession(seed: 71)
        try await session.publish()
        // B's audio interruption began; B has no subscriber connection yet.
        session.plane.handle([.remoteAudioPaused(room: session.room, participant: session.subscriberSID, paused: true)])
        try await session.subscribe()

        try session.sendRounds(20, keyframeFirst: true)
        let video = await TestPeer.pump([session.publisher, session.subscriber]) {
            session.received(ssrc: session.videoSSRC).count >= 20
        }
        #expect(video, "video is not paused and must arrive")
        // Give audio as long again: none may come.
        await TestPeer.pump([session.publisher, session.subscriber], for: .milliseconds(300))
        #expect(session.received(ssrc: session.audioSSRC).isEmpty, "remote audio must start paused")

        // The interruption ends: audio flows.
        session.plane.handle([.remoteAudioPaused(room: session.room, participant: session.subscriberSID, paused: false)])
        try session.sendRounds(10, keyframeFirst: false)
        let audio = await TestPeer.pump([session.publisher, session.subscriber]) {
            session.received(ssrc: session.audioSSRC).count >= 10
        }
        #expect(audio, "audio resumes when the interruption ends")
        await session.stop()
    }
}
}
