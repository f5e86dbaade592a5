import Testing

@testable import LoadTestCore

@Suite struct PrometheusExpositionTests {
    /// What the server's own writer (MediaIO `PrometheusText`) prints today.
    static let serverText = """
        # HELP vroom_packets_forwarded_total RTP packets sent to subscribers.
        # TYPE vroom_packets_forwarded_total counter
        vroom_packets_forwarded_total{kind="audio"} 1200
        vroom_packets_forwarded_total{kind="video"} 5400
        # HELP vroom_packets_dropped_total Datagrams and packets dropped, by reason.
        # TYPE vroom_packets_dropped_total counter
        vroom_packets_dropped_total{reason="malformed"} 0
        vroom_packets_dropped_total{reason="replay"} 3
        vroom_packets_dropped_total{reason="srtp_auth"} 1
        # TYPE vroom_retransmissions_total counter
        vroom_retransmissions_total 17

        """

    @Test func readsTheServersFormat() {
        let snapshot = MetricsSnapshot(parsing: Self.serverText)
        #expect(snapshot.malformedLines == 0)
        #expect(snapshot.samples.count == 6)
        #expect(snapshot.sum("vroom_packets_forwarded_total") == 6600)
        #expect(snapshot.sum("vroom_packets_forwarded_total", ["kind": "video"]) == 5400)
        #expect(snapshot.values("vroom_packets_dropped_total", by: "reason") == ["malformed": 0, "replay": 3, "srtp_auth": 1])
        #expect(snapshot.sum("vroom_retransmissions_total") == 17)
        #expect(snapshot.sum("vroom_nack_received_total") == nil)
    }

    /// swift-prometheus style: floats, label order, escapes, timestamps.
    @Test func readsOtherWritersSpellings() throws {
        let lines: [(String, MetricSample)] = [
            (#"vroom_bytes_forwarded_total{kind="video",node="a"} 1.5e3"#, MetricSample(name: "vroom_bytes_forwarded_total", labels: ["kind": "video", "node": "a"], value: 1500)),
            (#"m{path="/a \"b\" \\c\nd"} 2.0"#, MetricSample(name: "m", labels: ["path": "/a \"b\" \\c\nd"], value: 2)),
            (#"m_total{a="1",} 3 1700000000000"#, MetricSample(name: "m_total", labels: ["a": "1"], value: 3)),
            ("up  1", MetricSample(name: "up", value: 1)),
            (#"le_bucket{le="+Inf"} 4"#, MetricSample(name: "le_bucket", labels: ["le": "+Inf"], value: 4)),
            ("x:y_z 5\r", MetricSample(name: "x:y_z", value: 5)),
        ]
        for (line, expected) in lines {
            let parsed = try PrometheusExposition.sample(fromLine: Substring(line))
            #expect(parsed == expected, "\(line)")
        }
        let inf = try PrometheusExposition.sample(fromLine: "g +Inf")
        #expect(inf.value == .infinity)
        let nan = try PrometheusExposition.sample(fromLine: "g NaN")
        #expect(nan.value.isNaN)
    }

    @Test func malformedLinesAreCountedNotFatal() {
        let text = """
            # a comment
            good 1
            {kind="x"} 2
            bad{kind="x" 3
            bad{kind=x} 3
            bad{kind="x"}3
            bad{kind="x"} three
            bad 1 2 3
            9bad 1
            bad{kind="unterminated} 1
            also_good{a="b"} 2
            """
        let snapshot = MetricsSnapshot(parsing: text)
        #expect(snapshot.samples.map(\.name) == ["good", "also_good"])
        #expect(snapshot.malformedLines == 8)
    }
}
