import Testing

@testable import LoadTestCore

@Suite struct ServerCountsTests {
    @Test func countsAreTheDifferenceOfTwoScrapes() {
        let before = MetricsSnapshot(parsing: """
            vroom_packets_forwarded_total{kind="audio"} 100
            vroom_packets_forwarded_total{kind="video"} 1000
            vroom_packets_received_total{kind="audio"} 50
            vroom_packets_dropped_total{reason="replay"} 2
            vroom_packets_dropped_total{reason="malformed"} 5
            vroom_retransmissions_total 7
            vroom_tcp_frames_sent_total 40
            """)
        let after = MetricsSnapshot(parsing: """
            vroom_packets_forwarded_total{kind="audio"} 400
            vroom_packets_forwarded_total{kind="video"} 3000
            vroom_packets_received_total{kind="audio"} 150
            vroom_packets_dropped_total{reason="replay"} 2
            vroom_packets_dropped_total{reason="malformed"} 9
            vroom_packets_dropped_total{reason="srtp_auth"} 1
            vroom_retransmissions_total 10
            vroom_tcp_frames_sent_total 55
            """)
        let counts = ServerCounts(before: before, after: after)
        #expect(counts.packetsForwarded == 2300)
        #expect(counts.packetsForwardedByKind == ["audio": 300, "video": 2000])
        #expect(counts.packetsReceived == 100)
        // Reasons that did not move are left out; a reason new in the second scrape counts from 0.
        #expect(counts.droppedByReason == ["malformed": 4, "srtp_auth": 1])
        #expect(counts.droppedTotal == 5)
        #expect(counts.retransmissions == 3)
        #expect(counts.tcpFramesSent == 15)
        // Not exported: nil, not zero.
        #expect(counts.nacksReceived == nil)
        #expect(counts.bytesForwarded == nil)
    }

    @Test func aCounterThatWentDownWasReset() {
        let counts = ServerCounts(
            before: MetricsSnapshot(parsing: "vroom_retransmissions_total 500"),
            after: MetricsSnapshot(parsing: "vroom_retransmissions_total 20"))
        #expect(counts.retransmissions == 20)
        #expect(counts.tcpFramesSent == nil)
        #expect(counts.droppedByReason == nil)
        #expect(counts.droppedTotal == nil)
    }
}
