import Packets
import Node
import Testing
import VroomTestPeer
import WebRTC

@testable import MediaIO

/// RFC 7675 consent freshness through the real plane: a publisher whose
/// checks stop is failed with 53405 (issue 4 item 1), one that keeps
/// checking is not.
extension MediaPlaneScenarios {
@Suite struct MediaPlaneConsentTests {
    @Test func aPublisherWhoseChecksStopFailsWith53405AndItsMediaIsRefused() async throws {
        // Consent expires 4 s after the last check; the peers check every
        // 0.3 s, so a loaded machine (2 shared cores) has 13 checks of slack.
        let session = try PlaneSession(seed: 20, consentTimeoutSeconds: 4)
        try await session.publish(consentCheckInterval: .milliseconds(300))
        try await session.subscribe(consentCheckInterval: .milliseconds(300))
        let peers = [session.publisher, session.subscriber]

        // Checking keeps both alive past the timeout.
        await TestPeer.pump(peers, for: .milliseconds(5000))
        #expect(!session.log.all.contains { if case .failed = $0 { true } else { false } })
        try await session.expectForwarding(rounds: 3)

        // A goes quiet.
        session.publisher.silent = true
        let failed = await TestPeer.pump(peers, timeout: .seconds(20)) {
            session.log.all.contains { event in
                if case .failed(session.publisherSID, .publisher, 53405, _) = event { true } else { false }
            }
        }
        #expect(failed, "no 53405 for the silent publisher")
        // B kept checking: its connection is fine.
        #expect(!session.log.all.contains { event in
            if case .failed(session.subscriberSID, _, _, _) = event { true } else { false }
        })

        // Media from the failed connection is refused and counted.
        let before = await session.statistics()
        let videoBefore = session.received(ssrc: session.videoSSRC).count
        try session.sendRounds(5, keyframeFirst: true)
        await TestPeer.pump(peers, for: .milliseconds(200))
        let after = await session.statistics()
        #expect(after.transport.droppedNotConnected - before.transport.droppedNotConnected >= 10)
        #expect(session.received(ssrc: session.videoSSRC).count == videoBefore)
        await session.stop()
    }
}
}
