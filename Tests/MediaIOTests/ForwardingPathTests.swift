import Packets
import Testing
import VroomTestPeer

/// `ForwardingPath`, the path `SFUBenchmarks` measures (issue 16 item 6),
/// is the production one: `MediaWorkerRooms` unprotects, routes and
/// protects, `EgressQueue` sends on a real socket, and what it sends is
/// what real subscriber transports decrypt: each DownTrack's own SSRC, the
/// publisher's payload, every packet once, nothing dropped on the way.
@Suite(.serialized) struct ForwardingPathTests {
    @Test(arguments: [1, 3])
    func whatTheBenchmarkForwardsEverySubscriberDecrypts(subscribers: Int) async throws {
        let path = try ForwardingPath(subscribers: subscribers)
        #expect(path.profile != nil)
        let (sentBefore, _) = path.sent
        for _ in 0..<20 { path.forward() }
        #expect(path.sent.datagrams - sentBefore == UInt64(20 * subscribers))
        #expect(path.sent.failures == 0)
        #expect(path.dropped == 0)

        let arrived = await TestPeer.pump(path.subscribers, timeout: .seconds(5)) {
            path.subscribers.allSatisfy { $0.rtp.count >= 20 }
        }
        #expect(arrived, "received: \(path.subscribers.map(\.rtp.count))")
        let sent = ForwardingPath.vp8Packet(sequence: 0, pictureID: 100, keyframe: false, ssrc: ForwardingPath.ssrc)
        let payload = try sent.withUnsafeBytes { Array(try RTPPacketView(validating: $0).payload) }
        for (index, peer) in path.subscribers.enumerated() {
            #expect(peer.rtp.count == 20)
            #expect(peer.rtp.allSatisfy { $0.ssrc == SSRC(UInt32(5000 + index)) && $0.payloadType == 100 })
            // The VP8 descriptor's picture ID is the DownTrack's own; the
            // frame after it is the publisher's, byte for byte.
            #expect(peer.rtp.allSatisfy { $0.payload.count == payload.count && $0.payload.suffix(1100) == payload.suffix(1100) })
            let sequences = peer.rtp.map(\.sequenceNumber)
            #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 &+ 1 }, "\(sequences)")
        }
    }
}
