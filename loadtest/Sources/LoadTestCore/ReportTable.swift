import Foundation

/// The human-readable report: a summary, one row per published track, and
/// the server's own counts beside the clients'.
public enum ReportTable {
    public static func render(_ r: LoadTestReport) -> String {
        let c = r.configuration
        var out = ""
        func line(_ s: String = "") { out += s + "\n" }

        let media = c.audioOnly
            ? "audio only"
            : "video \(c.videoResolution) @ \(c.videoFrameRate) fps \(c.videoBitrate)bit/s\(c.simulcast ? " simulcast" : "") + audio"
        line("vroom-loadtest \(c.scenario.map { "scenario \($0): " } ?? "")\(c.rooms) room(s) x (\(c.publishers) pub + \(c.subscribers) sub), \(media)")
        line("server \(c.url), started \(r.startedAt), ramp \(number(c.ramp))/s, window \(number(r.windowSeconds, 1)) s, seed \(c.seed), decode sample \(c.decodingSubscribersPerRoom)/room")
        line()
        var summary = Columns()
        summary.add(["rooms", "created \(r.rooms.created) of \(r.rooms.planned)"])
        summary.add(["participants", "joined \(r.participants.joined) of \(r.participants.planned), failed \(r.participants.failed)\(byCode(r.participants.failuresByCode)), disconnected \(r.participants.disconnected)\(byCode(r.participants.disconnectsByCode))"])
        if let perNode = r.participants.perNode, !perNode.isEmpty {
            summary.add(["nodes", "participants per node at the window's end: " + byCount(perNode)])
        }
        if let cores = r.participants.cpuCoresPerNode, !cores.isEmpty {
            summary.add(["node CPU", "cores per node over the window: " + cores.sorted { $0.key < $1.key }.map { "\($0.key) \(number($0.value, 2))" }.joined(separator: ", ")])
        }
        summary.add(["join time", distribution(r.joinTimeMilliseconds, unit: "ms")])
        summary.add(["latency (e2e)", distribution(r.latencyMilliseconds, unit: "ms") + (r.latencyMilliseconds.count > 0 ? " (capture to decode, sampled receivers)" : "")])
        let worstLoss = r.tracks.compactMap(\.lossFraction).max()
        summary.add(["packet loss", "\(percent(r.lossFraction)) overall, worst track \(percent(worstLoss))"])
        summary.add(["frames", r.worstFrameRatio.map { "worst read/sent \(number($0, 3)) over \(r.tracks.flatMap(\.sampled).count) sampled receiver(s)" } ?? "no sampled video"])
        out += summary.render()
        line()

        line("Tracks (rates, loss and latency over the window; frames over the run)")
        var tracks = Columns()
        tracks.add(["room", "publisher", "kind", "subs", "rx kbit/s", "loss", "frames read/sent (sampled)", "latency p50/p99 ms"])
        for t in r.tracks {
            let frames = t.sampled.isEmpty ? "-" : t.sampled.map { "\($0.frameNumbersRead)/\($0.framesExpected)" }.joined(separator: " ")
            let latency = t.latencyMilliseconds.count > 0 ? "\(number(t.latencyMilliseconds.p50 ?? 0, 1)) / \(number(t.latencyMilliseconds.p99 ?? 0, 1))" : "-"
            tracks.add([t.room, t.publisher, t.kind, "\(t.subscribers)", number(t.receivedBitrateMean / 1000, 1), percent(t.lossFraction), frames, latency])
        }
        out += tracks.render(rightAligned: [3, 4, 5])
        line()

        if let summary = r.renderSummary, let receivers = r.renders {
            out += renders(summary, receivers, configuration: c)
            line()
        }

        if let groups = r.downlinkGroups, let receivers = r.downlink {
            out += downlink(groups, receivers, configuration: c)
            line()
        }

        line("Server (its own /metrics counts over \(number(r.server.scrapeSeconds, 1)) s) beside the clients' (whole run)")
        var server = Columns()
        server.add(["", "server", "clients"])
        let counts = r.server.counts
        server.add(["packets from publishers", count(counts?.packetsReceived), "\(grouped(r.clients.packetsSent)) sent"])
        server.add(["packets forwarded", count(counts?.packetsForwarded), "\(grouped(r.clients.packetsReceived)) received, \(grouped(r.clients.packetsLost)) lost"])
        for (kind, value) in (counts?.packetsForwardedByKind ?? [:]).sorted(by: { $0.key < $1.key }) {
            server.add(["  \(kind)", grouped(Int(value)), ""])
        }
        server.add(["sent over ICE-TCP (frames)", count(counts?.tcpFramesSent), ""])
        server.add(["forwarded per second", r.server.forwardedPacketsPerSecond.map { number($0, 0) } ?? "-", ""])
        server.add(["NACKs (receivers to server)", count(counts?.nacksReceived), "\(grouped(r.clients.nacksSent)) sent by receivers"])
        server.add(["retransmissions", count(counts?.retransmissions), "\(grouped(r.clients.retransmissionsSent)) by publishers (on the server's NACKs)"])
        server.add(["PLIs sent", count(counts?.plisSent), "\(grouped(r.clients.keyframeRequestsReceived)) received by publishers"])
        server.add(["dropped", count(counts?.droppedTotal), ""])
        for (reason, value) in (counts?.droppedByReason ?? [:]).sorted(by: { $0.key < $1.key }) {
            server.add(["  \(reason)", grouped(Int(value)), ""])
        }
        server.add(["server CPU", r.server.cpuSeconds.map { "\(number($0, 2)) s" } ?? "- (no --server-pid)", ""])
        server.add(["CPU per forwarded packet", r.server.cpuSecondsPerForwardedPacket.map { "\(number($0 * 1_000_000, 2)) µs" } ?? "-", ""])
        out += server.render(rightAligned: [1])
        if let error = r.server.metricsError { line("  /metrics: \(error)") }
        if let tester = r.loadTester {
            let lag = tester.eventLoopLagMilliseconds
            line("Load tester: \(tester.eventLoopThreads) event loop thread(s) on \(tester.cores) core(s), "
                + "CPU \(tester.cpuCores.map { number($0, 2) } ?? "-") cores, event-loop lag p50 / p99 / max "
                + "\(lag.p50.map { number($0, 1) } ?? "-") / \(lag.p99.map { number($0, 1) } ?? "-") / \(lag.max.map { number($0, 1) } ?? "-") ms"
                + (tester.saturated ? ": SATURATED (\(tester.reasons.joined(separator: "; ")))" : ""))
        }
        line()
        if r.verdict.passed {
            line(r.loadTester?.saturated == true ? "PASS (the load tester was saturated: the figures are a floor)" : "PASS")
        } else {
            line(r.verdict.inconclusive ? "INCONCLUSIVE" : "FAIL")
            for reason in r.verdict.reasons { line("  - \(reason)") }
        }
        return out
    }

    /// The `--render` section: per render size, then per subscriber.
    static func renders(_ summary: [LoadTestReport.RenderSummary], _ receivers: [LoadTestReport.RenderReceiver], configuration c: LoadTestConfiguration) -> String {
        var out = "Render sizes (\(c.render?.description ?? "-")\(c.renderChangeAfter.map { ", each changes once at \(number($0, 1)) s into the window" } ?? ""))\n"
        out += "  layer = decoded frame size (at the first render size, then after the change); switches = decoded size changes; switch = setContentPreferences to the first frame of the new layer\n"
        var sizes = Columns()
        sizes.add(["render", "receivers", "layers received", "switches (mean)", "switch p50/max ms"])
        for s in summary {
            let decoded = s.decodedSizes.sorted { $0.key < $1.key }.map { "\($0.key) x\($0.value)" }.joined(separator: ", ")
            let time = s.switchMilliseconds.count > 0 ? "\(number(s.switchMilliseconds.p50 ?? 0, 1)) / \(number(s.switchMilliseconds.max ?? 0, 1))" : "-"
            sizes.add([s.renderSize.description, "\(s.receivers)", decoded, s.layerSwitchesMean.map { number($0, 1) } ?? "-", time])
        }
        out += sizes.render(rightAligned: [1, 3])
        var rows = Columns()
        rows.add(["subscriber", "room", "publisher", "render", "layer", "then", "layer", "switches", "switch ms"])
        for r in receivers {
            rows.add([
                r.subscriber, r.room, r.publisher, r.renderSize.description, r.firstLayer?.description ?? "-",
                r.changedRenderSize?.description ?? "-", r.changedRenderSize == nil ? "-" : r.decodedSize?.description ?? "-",
                "\(r.layerSwitches)", r.switchMilliseconds.map { number($0, 1) } ?? "-",
            ])
        }
        out += rows.render(rightAligned: [7, 8])
        return out
    }

    /// Subscribers listed one by one up to this many (beyond, the groups only).
    static let downlinkRowsLimit = 24

    /// The `--downlink-kbps` section: per group, then per subscriber.
    static func downlink(_ groups: [LoadTestReport.DownlinkGroup], _ receivers: [LoadTestReport.DownlinkReceiver], configuration c: LoadTestConfiguration) -> String {
        func kbps(_ bits: Double?) -> String { bits.map { number($0 / 1000, 0) } ?? "-" }
        var out = "Downlink (--downlink-kbps \(c.downlinkKbps?.description ?? "-"); each shaped subscriber behind its own vroom-impair)\n"
        out += "  estimate = the server's available_outgoing_bitrate from /Stats (kbit/s, sampled each second of the window); rx video over the window; layer forwarded per /Stats; off = trackSwitchedOff events; freezes in the window\n"
        var rows = Columns()
        rows.add(["downlink", "subs", "estimate p50", "rx video kbit/s", "layer (last)", "off", "freezes"])
        for g in groups {
            let layers = g.layersLast.sorted { $0.key < $1.key }.map { "\($0.key) x\($0.value)" }.joined(separator: ", ")
            rows.add([DownlinkGroups.label(g.downlinkKbps), "\(g.subscribers)", kbps(g.estimateMedian), number(g.videoBitrateMean / 1000, 1), layers, "\(g.switchedOffEvents)", "\(g.freezes)"])
        }
        out += rows.render(rightAligned: [1, 2, 3, 5, 6])
        guard receivers.count <= downlinkRowsLimit else { return out }
        var each = Columns()
        each.add(["subscriber", "room", "downlink", "estimate last/min/p50", "rx video kbit/s", "layers seen", "off", "freezes", "relay drops"])
        for r in receivers {
            each.add([
                r.subscriber, r.room, DownlinkGroups.label(r.downlinkKbps),
                "\(kbps(r.estimateLast)) / \(kbps(r.estimateMin)) / \(kbps(r.estimateMedian))", number(r.videoBitrate / 1000, 1),
                r.layersSeen.isEmpty ? "-" : r.layersSeen.joined(separator: " > "), "\(r.switchedOffEvents)", "\(r.freezes)",
                r.relayQueueDrops.map(String.init) ?? "-",
            ])
        }
        out += each.render(rightAligned: [3, 4, 6, 7, 8])
        return out
    }

    /// "10.0.0.5:7880 x12, 10.0.0.6:7880 x4": most first, then by name.
    static func byCount(_ counts: [String: Int]) -> String {
        counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.key) x\($0.value)" }.joined(separator: ", ")
    }

    static func byCode(_ codes: [String: Int]) -> String {
        codes.isEmpty ? "" : " (" + codes.sorted { $0.key < $1.key }.map { "\($0.key) x\($0.value)" }.joined(separator: ", ") + ")"
    }

    static func distribution(_ d: Distribution, unit: String) -> String {
        guard d.count > 0, let p50 = d.p50, let p99 = d.p99, let max = d.max else { return "-" }
        return "p50 \(number(p50, 1)) \(unit), p99 \(number(p99, 1)) \(unit), max \(number(max, 1)) \(unit) (n=\(d.count))"
    }

    static func percent(_ fraction: Double?) -> String {
        fraction.map { String(format: "%.2f%%", $0 * 100) } ?? "-"
    }

    static func count(_ value: Double?) -> String {
        value.map { grouped(Int($0.rounded())) } ?? "-"
    }

    static func number(_ value: Double, _ decimals: Int = 0) -> String {
        if decimals == 0, value.isFinite, abs(value) < 1e15 { return grouped(Int(value.rounded())) }
        return String(format: "%.\(decimals)f", value)
    }

    /// 1234567 -> "1,234,567".
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return value < 0 ? "-" + out : out
    }

    /// Left-aligned text columns separated by two spaces.
    struct Columns {
        var rows: [[String]] = []
        mutating func add(_ row: [String]) { rows.append(row) }

        func render(rightAligned: Set<Int> = []) -> String {
            let columns = rows.map(\.count).max() ?? 0
            var widths = Array(repeating: 0, count: columns)
            for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
            var out = ""
            for row in rows {
                var cells: [String] = []
                for (i, cell) in row.enumerated() {
                    let pad = String(repeating: " ", count: widths[i] - cell.count)
                    cells.append(rightAligned.contains(i) ? pad + cell : (i == row.count - 1 ? cell : cell + pad))
                }
                out += "  " + cells.joined(separator: "  ") + "\n"
            }
            return out
        }
    }
}
