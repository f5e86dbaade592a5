import Packets
import Node
import Rooms
import Testing
import VroomTestPeer
import WebRTC

@testable import MediaIO

/// Network quality and dominant speaker out of a real plane: SRTP audio
/// with the `ssrc-audio-level` extension (ID 1 in the test publisher's
/// offer) from A to B over UDP, the worker's timers, and the events.
extension MediaPlaneScenarios {
@Suite struct MediaPlaneSignalsTests {
    @Test func speechMakesTheSpeakerDominantSilenceMakesNobodyAndQualityIsReported() async throws {
        let session = try await PlaneSession.connected(seed: 61)
        let peers = [session.publisher, session.subscriber]

        // 1.2 s of speech at -30 dBov, one Opus packet every 20 ms.
        func speak(_ level: UInt8, for milliseconds: Int) async throws {
            for _ in 0..<(milliseconds / 20) {
                var (header, payload) = session.source.audioPacket()
                header.extensions.append(.init(id: 1, value: [0x80 | level]))
                try session.publisher.sendRTP(header, payload: payload)
                await TestPeer.pump(peers, for: .milliseconds(20))
            }
        }
        try await speak(30, for: 1200)
        let dominant = session.log.all.contains { $0 == .dominantSpeaker(room: session.room, participant: session.publisherSID) }
        #expect(dominant, "A did not become the dominant speaker: \(session.log.all)")

        // Silence (127) for 2.4 s: nobody.
        try await speak(127, for: 2400)
        let events = session.log.all.compactMap { event -> ParticipantSID?? in
            if case .dominantSpeaker(_, let participant) = event { participant } else { nil }
        }
        #expect(events == [session.publisherSID, nil])

        // A's audio came on time over loopback: level 4 or 5. (B sends no
        // RTCP: nothing to rate until its 5 s without media.)
        func levels(_ participant: ParticipantSID) -> [Int] {
            session.log.all.compactMap { event -> Int? in
                if case .networkQuality(session.room, participant, let level, _) = event { level } else { nil }
            }
        }
        let publisher = levels(session.publisherSID)
        #expect(!publisher.isEmpty && publisher.allSatisfy { $0 >= 4 }, "\(publisher)")
        // About 4 s of sampling: one report a second at most, changes only.
        #expect(publisher.count <= 5)
        await session.stop()
    }
}
}
