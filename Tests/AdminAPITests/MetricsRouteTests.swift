import AdminAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import MediaIO
import Rooms
import Testing
import LoadTestCore
import Node
import VroomTesting

/// `GET /metrics` through the real route and `NodeMetrics` (DESIGN.md,
/// "Metrics"; PROTOCOL.md section 6).
@Suite struct MetricsRouteTests {
    /// Every family DESIGN.md names, and the other media ones the server
    /// exported before (tests and interop scripts read them).
    static let families: [String: String] = [
        "vroom_rooms": "gauge", "vroom_participants": "gauge", "vroom_join_seconds": "histogram",
        "vroom_signaling_errors_total": "counter", "vroom_webhooks_pending": "gauge", "vroom_webhooks_failed_total": "counter",
        "vroom_network_quality_participants": "gauge",
        "vroom_packets_received_total": "counter", "vroom_packets_forwarded_total": "counter",
        "vroom_bytes_forwarded_total": "counter", "vroom_packets_dropped_total": "counter",
        "vroom_nack_received_total": "counter", "vroom_retransmissions_total": "counter", "vroom_nack_sent_total": "counter",
        "vroom_pli_sent_total": "counter", "vroom_transport_cc_feedback_sent_total": "counter",
        "vroom_udp_datagrams_received_total": "counter", "vroom_udp_datagrams_sent_total": "counter",
        "vroom_udp_send_failures_total": "counter", "vroom_media_connections": "gauge",
        "vroom_layer_switches_total": "counter", "vroom_probe_packets_total": "counter",
        "vroom_tracks_switched_off": "gauge", "vroom_subscriber_estimate_bps": "histogram",
        "vroom_pacer_queue_delay_seconds": "summary",
        "process_cpu_seconds_total": "counter",
    ]

    /// The adaptive-video families (issue 13) carry what the routers counted:
    /// the estimate histogram's buckets are cumulative, the switch-off gauge
    /// has a sample per reason.
    @Test func adaptiveVideoFiguresAreExported() throws {
        var statistics = MediaStatistics()
        for estimate: UInt64 in [80_000, 300_000, 300_000, 3_000_000, 50_000_000] {
            statistics.router.subscriberEstimates.observe(estimate)
        }
        statistics.router.layerSwitches = 7
        statistics.router.probePacketsSent = 40
        statistics.router.pacerHeldPackets = 4
        statistics.router.pacerDelayNanoseconds = 30_000_000
        statistics.tracksSwitchedOff = [.networkCongestion: 2, .disabledBySubscriber: 1]
        let exposition = try PrometheusExposition(parsing: statistics.prometheusText)
        let bucket = "vroom_subscriber_estimate_bps_bucket"
        #expect(exposition.value(bucket, ["le": "100000"]) == 1)
        #expect(exposition.value(bucket, ["le": "500000"]) == 3)
        #expect(exposition.value(bucket, ["le": "5000000"]) == 4)
        #expect(exposition.value(bucket, ["le": "10000000"]) == 4)
        #expect(exposition.value(bucket, ["le": "+Inf"]) == 5)
        #expect(exposition.value("vroom_subscriber_estimate_bps_count") == 5)
        #expect(exposition.value("vroom_subscriber_estimate_bps_sum") == 53_680_000)
        #expect(exposition.value("vroom_layer_switches_total") == 7)
        #expect(exposition.value("vroom_probe_packets_total") == 40)
        #expect(exposition.value("vroom_pacer_queue_delay_seconds_count") == 4)
        #expect(exposition.value("vroom_pacer_queue_delay_seconds_sum") == 0.03)
        #expect(exposition.value("vroom_tracks_switched_off", ["reason": "network-congestion"]) == 2)
        #expect(exposition.value("vroom_tracks_switched_off", ["reason": "disabled-by-subscriber"]) == 1)
        #expect(exposition.value("vroom_tracks_switched_off", ["reason": "max-bandwidth-reached"]) == 0)
    }

    struct Fixture {
        let fixture: AdminFixture
        let plane: MediaPlane
        let media: RoomMedia
        let metrics = NodeMetrics()
        let router = Router()

        init(access: MetricsAccess = .open) throws {
            fixture = try AdminFixture()
            plane = try MediaPlane(
                configuration: MediaConfiguration(bindAddress: "127.0.0.1", basePort: 0, workers: 2),
                logger: Logger(label: "test.media"), events: { _ in })
            plane.start()
            media = RoomMedia(plane: plane)
            let (host, media) = (fixture.host, media)
            router.addMetricsRoute(metrics, access: access) {
                await NodeSnapshot.read(host: host, media: media, webhooks: nil)
            }
        }

        var app: some ApplicationProtocol { Application(router: router) }
    }

    static func scrape(_ client: some TestClientProtocol, authorization: String? = nil) async throws -> (Int, String, String?) {
        var headers: HTTPFields = [:]
        if let authorization { headers[.authorization] = authorization }
        return try await client.execute(uri: "/metrics", method: .get, headers: headers) { response in
            (Int(response.status.code), String(buffer: response.body), response.headers[.contentType])
        }
    }

    @Test func everyFamilyOnceWithHelpAndTypeAndValuesThatMove() async throws {
        let fixture = try Fixture()
        try await fixture.app.test(.router) { client in
            let (status, text, contentType) = try await Self.scrape(client)
            #expect(status == 200)
            #expect(contentType == "text/plain; version=0.0.4; charset=utf-8")
            let before = try PrometheusExposition(parsing: text)
            for (name, type) in Self.families {
                #expect(before.families[name]?.type == type, "\(name)")
                #expect(before.families[name]?.help?.isEmpty == false, "\(name) has no HELP")
            }
            #expect(before.value("vroom_rooms") == 0)
            #expect(before.value("vroom_participants") == 0)
            #expect(before.value("vroom_join_seconds_count") == 0)
            #expect(before.value("vroom_signaling_errors_total", ["code": "53205"]) == 0)
            #expect(before.value("vroom_network_quality_participants", ["level": "5"]) == 0)
            #expect(before.value("vroom_packets_dropped_total", ["reason": "srtp_auth"]) == 0)
            #expect(before.value("vroom_packets_forwarded_total", ["kind": "video"]) == 0)
        }
        try await fixture.fixture.join("alice")
        try await fixture.fixture.join("bob")
        try await fixture.fixture.join("carol", room: "other")
        // What signaling reports: two joins, a duplicate identity (53205) twice.
        let signaling = fixture.metrics.signaling
        signaling.joinCompleted(.milliseconds(7))
        signaling.joinCompleted(.milliseconds(300))
        signaling.errorSent(53205)
        signaling.errorSent(53205)
        try await fixture.app.test(.router) { client in
            let after = try PrometheusExposition(parsing: try await Self.scrape(client).1)
            #expect(after.value("vroom_rooms") == 2)
            #expect(after.value("vroom_participants") == 3)
            #expect(after.value("vroom_join_seconds_count") == 2)
            #expect(abs((after.value("vroom_join_seconds_sum") ?? 0) - 0.307) < 1e-9)
            #expect(after.value("vroom_join_seconds_bucket", ["le": "0.01"]) == 1)
            #expect(after.value("vroom_join_seconds_bucket", ["le": "0.25"]) == 1)
            #expect(after.value("vroom_join_seconds_bucket", ["le": "0.5"]) == 2)
            #expect(after.value("vroom_join_seconds_bucket", ["le": "+Inf"]) == 2)
            #expect(after.value("vroom_signaling_errors_total", ["code": "53205"]) == 2)
            #expect(after.value("vroom_signaling_errors_total", ["code": "53105"]) == 0)
            // Two media workers were asked: the datagram counters are theirs.
            #expect(after.value("vroom_media_connections") == 0)
        }
        await fixture.plane.stop()
    }

    @Test func webhookFailuresOnlyGrow() throws {
        let metrics = NodeMetrics()
        func failed(_ total: Int) throws -> Double? {
            try PrometheusExposition(parsing: metrics.exposition(NodeSnapshot(webhooksPending: 4, webhooksFailed: total)))
                .value("vroom_webhooks_failed_total")
        }
        #expect(try failed(3) == 3)
        #expect(try failed(5) == 5)
        // An older reading after a newer one (two scrapes racing) moves nothing.
        #expect(try failed(4) == 5)
        #expect(try PrometheusExposition(parsing: metrics.exposition(NodeSnapshot(webhooksPending: 4))).value("vroom_webhooks_pending") == 4)
        // The process's CPU seconds (a load tester reads each node's).
        var busy = NodeSnapshot()
        busy.cpuSeconds = 12.5
        #expect(try PrometheusExposition(parsing: metrics.exposition(busy)).value("process_cpu_seconds_total") == 12.5)
        let levels = try PrometheusExposition(parsing: metrics.exposition(NodeSnapshot(networkQuality: [1, 0, 0, 2, 0, 7])))
        #expect(levels.value("vroom_network_quality_participants", ["level": "0"]) == 1)
        #expect(levels.value("vroom_network_quality_participants", ["level": "3"]) == 2)
        #expect(levels.value("vroom_network_quality_participants", ["level": "5"]) == 7)
    }

    @Test func metricsAuthRequiresTheAPICredentials() async throws {
        let fixture = try Fixture(access: .basic(apiKey: AdminFixture.key, apiSecret: AdminFixture.secret))
        try await fixture.app.test(.router) { client in
            #expect(try await Self.scrape(client).0 == 401)
            let wrong = "Basic " + Data("\(AdminFixture.key):nope".utf8).base64EncodedString()
            #expect(try await Self.scrape(client, authorization: wrong).0 == 401)
            let (status, text, _) = try await Self.scrape(client, authorization: AdminFixture.authorization)
            #expect(status == 200)
            #expect(try PrometheusExposition(parsing: text).families["vroom_rooms"] != nil)
        }
        await fixture.plane.stop()
    }

    @Test func labelValuesAreEscapedAndTheParserRejectsBadText() throws {
        var text = PrometheusText()
        text.family("t_total", "A test.", "counter")
        text.sample("t_total", ["reason": #"a "quoted" \ back"# + "\nslash"], 3)
        #expect(text.text.contains(#"t_total{reason="a \"quoted\" \\ back\nslash"} 3"#))
        let parsed = try PrometheusExposition(parsing: text.text)
        #expect(parsed.value("t_total", ["reason": #"a "quoted" \ back"# + "\nslash"]) == 3)

        let bad = [
            "# TYPE a counter\n# TYPE a counter\na 1\n",  // TYPE twice
            "a 1\n",  // no family
            "# TYPE a counter\na{x=\"1} 1\n",  // unterminated
            "# TYPE a counter\na{x=\"\\q\"} 1\n",  // bad escape
            "# TYPE a counter\na 1\n# TYPE b gauge\nb 1\na 2\n",  // a split
            "# TYPE a counter\na 1\na 1\n",  // repeated sample
            "# TYPE a counter\n# HELP a late\na 1\n",  // HELP after TYPE
            "# TYPE a counter\na one\n",  // bad value
        ]
        for text in bad {
            #expect(throws: PrometheusExposition.Problem.self, "\(text)") { try PrometheusExposition(parsing: text) }
        }
    }
}
