extension LoadTestReport {
    /// Per subscriber and video track it asked a render size for: the
    /// layer it got at its first size and the one it ended on, the layer switches it saw and how long the change
    /// of `--render-change-after` took to show. All from the final
    /// snapshots (sizes and requests carry their own times).
    static func renders(_ snapshots: [ParticipantSnapshot]) -> [RenderReceiver] {
        var publishers: [String: String] = [:]
        for participant in snapshots {
            for sent in participant.sent { if let sid = sent.trackSid { publishers[sid] = participant.identity } }
        }
        var out: [RenderReceiver] = []
        for subscriber in snapshots where !subscriber.renderRequests.isEmpty {
            let requests = Dictionary(grouping: subscriber.renderRequests, by: \.trackSid)
            for (trackSid, asked) in requests {
                guard let first = asked.first else { continue }
                let track = subscriber.received.first { $0.trackSid == trackSid }
                let sizes = track?.decodedSizes ?? []
                let change = asked.dropFirst().first { $0.size != first.size }
                out.append(
                    RenderReceiver(
                        subscriber: subscriber.identity, room: subscriber.roomName, publisher: publishers[trackSid] ?? "-",
                        trackSid: trackSid, renderSize: first.size, changedRenderSize: change?.size,
                        decodedSize: sizes.last?.size,
                        firstLayer: change.map { change in sizes.last { $0.seconds < change.seconds }?.size } ?? sizes.last?.size,
                        layerSwitches: max(0, sizes.count - 1),
                        switchMilliseconds: change.flatMap { switchMilliseconds(after: $0, sizes: sizes) }))
            }
        }
        return out.sorted { ($0.room, $0.subscriber, $0.publisher, $0.trackSid) < ($1.room, $1.subscriber, $1.publisher, $1.trackSid) }
    }

    /// From `request` to the first size change after it: the first frame of
    /// the layer the new size brought. nil when the size never changed
    /// after the request (the server kept the layer).
    static func switchMilliseconds(after request: ParticipantSnapshot.RenderRequest, sizes: [ParticipantSnapshot.DecodedSize]) -> Double? {
        guard let index = sizes.firstIndex(where: { $0.seconds >= request.seconds }), index > 0 else { return nil }
        return (sizes[index].seconds - request.seconds) * 1000
    }

    static func renderSummary(_ receivers: [RenderReceiver]) -> [RenderSummary] {
        let byRender = Dictionary(grouping: receivers, by: \.renderSize)
        return byRender.map { size, receivers in
            var decoded: [String: Int] = [:]
            for receiver in receivers { decoded[receiver.firstLayer?.description ?? "none", default: 0] += 1 }
            return RenderSummary(
                renderSize: size, receivers: receivers.count, decodedSizes: decoded,
                layerSwitchesMean: receivers.isEmpty
                    ? nil : Double(receivers.reduce(0) { $0 + $1.layerSwitches }) / Double(receivers.count),
                switchMilliseconds: Distribution(milliseconds: receivers.compactMap(\.switchMilliseconds)))
        }.sorted { ($0.renderSize.width * $0.renderSize.height, $0.renderSize.width) < ($1.renderSize.width * $1.renderSize.height, $1.renderSize.width) }
    }
}
