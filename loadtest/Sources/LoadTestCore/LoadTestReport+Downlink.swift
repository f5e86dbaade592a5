extension LoadTestReport {
    /// Per subscriber under `--downlink-kbps`: the server's estimate from
    /// the `/Stats` samples, the video it received and the freezes it saw in
    /// the window (differences of the two snapshots), the layers forwarded,
    /// and its `trackSwitchedOff` events over the run.
    static func downlink(_ o: RunObservations) -> [DownlinkReceiver] {
        let start = Dictionary(o.windowStart.map { ($0.identity, $0) }, uniquingKeysWith: { $1 })
        let window = max(o.windowSeconds, 0.001)
        var out: [DownlinkReceiver] = []
        for end in o.windowEnd where end.role == .subscriber {
            let begin = start[end.identity]
            var bytes = 0
            var freezes = 0
            for track in end.received where track.kind == "video" {
                let before = begin?.received.first { $0.trackSid == track.trackSid }
                bytes += max(0, track.bytesReceived - (before?.bytesReceived ?? 0))
                freezes += max(0, track.freezeCount - (before?.freezeCount ?? 0))
            }
            let series = o.downlinkSeries[end.identity] ?? DownlinkSeries()
            let sorted = series.estimates.sorted()
            var seen: [String] = []
            for layer in series.layers where seen.last != layer { seen.append(layer) }
            out.append(DownlinkReceiver(
                subscriber: end.identity, room: end.roomName, downlinkKbps: end.downlinkKbps ?? 0,
                estimateLast: series.estimates.last, estimateMin: sorted.first, estimateMedian: median(sorted),
                estimateSamples: sorted.count, videoBitrate: Double(bytes) * 8 / window,
                layerLast: series.layers.last, layersSeen: seen, switchedOffEvents: end.switchedOffEvents, freezes: freezes,
                relayQueueDrops: o.relayQueueDrops[end.identity]))
        }
        return out.sorted { ($0.downlinkKbps == 0 ? Int.max : $0.downlinkKbps, $0.room, $0.subscriber) < ($1.downlinkKbps == 0 ? Int.max : $1.downlinkKbps, $1.room, $1.subscriber) }
    }

    /// The same per group, slowest first, unshaped last.
    static func downlinkGroups(_ receivers: [DownlinkReceiver]) -> [DownlinkGroup] {
        let byGroup = Dictionary(grouping: receivers, by: \.downlinkKbps)
        return byGroup.map { kbps, members in
            var layers: [String: Int] = [:]
            for member in members { layers[member.layerLast ?? "-", default: 0] += 1 }
            return DownlinkGroup(
                downlinkKbps: kbps, subscribers: members.count,
                estimateMedian: median(members.compactMap(\.estimateMedian).sorted()),
                videoBitrateMean: members.reduce(0) { $0 + $1.videoBitrate } / Double(max(members.count, 1)),
                switchedOffEvents: members.reduce(0) { $0 + $1.switchedOffEvents },
                freezes: members.reduce(0) { $0 + $1.freezes }, layersLast: layers)
        }.sorted { ($0.downlinkKbps == 0 ? Int.max : $0.downlinkKbps) < ($1.downlinkKbps == 0 ? Int.max : $1.downlinkKbps) }
    }

    /// The middle of sorted values (the mean of the two middle ones for an even count).
    static func median(_ sorted: [Double]) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
