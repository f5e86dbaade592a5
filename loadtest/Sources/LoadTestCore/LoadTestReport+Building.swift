import Foundation

extension LoadTestReport {
    /// The report math: windowed rates, loss and latency from the two
    /// snapshots; frame ratios and client totals from the final one; the
    /// server's counts from the two scrapes; the verdict from the thresholds.
    public init(observations o: RunObservations) {
        let c = o.configuration
        configuration = c
        startedAt = ISO8601DateFormatter().string(from: o.startedAt)
        windowSeconds = o.windowSeconds

        rooms = Rooms(planned: o.rooms.count, created: o.rooms.count - o.roomFailures.count, failures: o.roomFailures)

        var failuresByCode: [String: Int] = [:]
        var disconnectsByCode: [String: Int] = [:]
        for join in o.joins {
            if let failure = join.failure { failuresByCode[failure, default: 0] += 1 }
            if let code = join.disconnect { disconnectsByCode[code, default: 0] += 1 }
        }
        let joinTimes = o.joins.compactMap(\.joinMilliseconds)
        participants = Participants(
            planned: o.joins.count, joined: joinTimes.count, failed: o.joins.count(where: { $0.failure != nil }),
            failuresByCode: failuresByCode, disconnected: o.joins.count(where: { $0.disconnect != nil }),
            disconnectsByCode: disconnectsByCode)
        var nodes: [String: String] = [:]
        for participant in o.windowEnd { nodes[participant.identity] = participant.node }
        participants.nodes = nodes
        participants.perNode = nodes.values.reduce(into: [:]) { $0[$1, default: 0] += 1 }
        if !o.nodeCPUSeconds.isEmpty, o.windowSeconds > 0 {
            participants.cpuCoresPerNode = o.nodeCPUSeconds.mapValues { $0 / o.windowSeconds }
        }
        joinTimeMilliseconds = Distribution(milliseconds: joinTimes)

        let tracks = Self.tracks(o)
        self.tracks = tracks
        let received = tracks.reduce(0) { $0 + $1.packetsReceived }
        let lost = tracks.reduce(0) { $0 + $1.packetsLost }
        lossFraction = received + lost > 0 ? Double(lost) / Double(received + lost) : nil

        var latency = Distribution.Recorder()
        for samples in Self.windowLatencies(o) { latency.record(milliseconds: samples) }
        latencyMilliseconds = latency.distribution
        worstFrameRatio = tracks.flatMap(\.sampled).compactMap(\.frameRatio).min()

        if o.configuration.render != nil {
            let renders = Self.renders(o.windowEnd)
            self.renders = renders
            renderSummary = Self.renderSummary(renders)
        }
        if c.downlinkKbps != nil {
            let downlink = Self.downlink(o)
            self.downlink = downlink
            downlinkGroups = Self.downlinkGroups(downlink)
        }
        clients = Self.clientTotals(o.windowEnd)
        server = Self.server(o)
        loadTester = o.tester.map(LoadTesterHealth.init)
        verdict = Self.verdict(
            configuration: c, rooms: rooms, participants: participants, tracks: tracks, tester: loadTester)
    }

    struct ReceiverKey: Hashable {
        var identity: String
        var trackSid: String
    }

    /// Published tracks (those with a SID), each with what its receivers got.
    static func tracks(_ o: RunObservations) -> [Track] {
        var start: [ReceiverKey: ParticipantSnapshot.ReceivedTrack] = [:]
        for participant in o.windowStart {
            for track in participant.received { start[ReceiverKey(identity: participant.identity, trackSid: track.trackSid)] = track }
        }
        let window = max(o.windowSeconds, 0.001)
        var out: [Track] = []
        for publisher in o.windowEnd {
            for sent in publisher.sent {
                guard let sid = sent.trackSid else { continue }
                var bitrates: [Double] = []
                var packets = 0
                var lost = 0
                var sampled: [SampledReceiver] = []
                var latency = Distribution.Recorder()
                for receiver in o.windowEnd where receiver.identity != publisher.identity {
                    guard let end = receiver.received.first(where: { $0.trackSid == sid }) else { continue }
                    let begin = start[ReceiverKey(identity: receiver.identity, trackSid: sid)]
                    let bytes = max(0, end.bytesReceived - (begin?.bytesReceived ?? 0))
                    bitrates.append(Double(bytes) * 8 / window)
                    packets += max(0, end.packetsReceived - (begin?.packetsReceived ?? 0))
                    // Cumulative loss can shrink when a retransmission fills a gap: clamp.
                    lost += max(0, end.packetsLost - (begin?.packetsLost ?? 0))
                    if receiver.decodesVideo && sent.kind == "video" {
                        latency.record(milliseconds: Array(end.latencyMilliseconds.dropFirst(begin?.latencyMilliseconds.count ?? 0)))
                        let expected = max(0, sent.framesSent - Int(end.firstFrameNumber ?? 0))
                        let read = end.frameNumberRanges.isEmpty
                            ? end.frameNumbersRead : Self.framesRead(end.frameNumberRanges, before: sent.framesSent)
                        sampled.append(SampledReceiver(
                            subscriber: receiver.identity, framesDecoded: end.framesDecoded, frameNumbersRead: read,
                            firstFrameNumber: end.firstFrameNumber, framesExpected: expected,
                            frameRatio: expected > 0 ? Double(read) / Double(expected) : nil))
                    }
                }
                out.append(Track(
                    trackSid: sid, room: publisher.roomName, publisher: publisher.identity, kind: sent.kind,
                    subscribers: bitrates.count,
                    receivedBitrateMean: bitrates.isEmpty ? 0 : bitrates.reduce(0, +) / Double(bitrates.count),
                    packetsReceived: packets, packetsLost: lost,
                    lossFraction: packets + lost > 0 ? Double(lost) / Double(packets + lost) : nil,
                    packetsSent: sent.packetsSent, framesSent: sent.kind == "video" ? sent.framesSent : nil,
                    sampled: sampled.sorted { $0.subscriber < $1.subscriber }, latencyMilliseconds: latency.distribution))
            }
        }
        return out.sorted { ($0.room, $0.publisher, $0.kind) < ($1.room, $1.publisher, $1.kind) }
    }

    /// How many of the frame numbers in `ranges` are below `framesSent`:
    /// the frames read among those sent by the publisher's snapshot (taken
    /// before its receivers'), not those sent after it.
    static func framesRead(_ ranges: [ClosedRange<UInt32>], before framesSent: Int) -> Int {
        guard framesSent > 0 else { return 0 }
        let last = UInt32(clamping: framesSent - 1)
        return ranges.reduce(0) { count, range in
            range.lowerBound > last ? count : count + Int(min(range.upperBound, last) - range.lowerBound) + 1
        }
    }

    /// Latency samples of the window, per decoding receiver of a video track.
    static func windowLatencies(_ o: RunObservations) -> [[Double]] {
        var start: [ReceiverKey: Int] = [:]
        for participant in o.windowStart {
            for track in participant.received { start[ReceiverKey(identity: participant.identity, trackSid: track.trackSid)] = track.latencyMilliseconds.count }
        }
        var out: [[Double]] = []
        for receiver in o.windowEnd where receiver.decodesVideo {
            for track in receiver.received where track.kind == "video" {
                out.append(Array(track.latencyMilliseconds.dropFirst(start[ReceiverKey(identity: receiver.identity, trackSid: track.trackSid)] ?? 0)))
            }
        }
        return out
    }

    static func clientTotals(_ snapshots: [ParticipantSnapshot]) -> Clients {
        var c = Clients(
            packetsSent: 0, bytesSent: 0, packetsReceived: 0, bytesReceived: 0, packetsLost: 0, framesSent: 0, framesDecoded: 0,
            nacksSent: 0, keyframeRequestsSent: 0, retransmissionsSent: 0, keyframeRequestsReceived: 0)
        for p in snapshots {
            for t in p.sent {
                c.packetsSent += t.packetsSent
                c.bytesSent += t.bytesSent
                if t.kind == "video" { c.framesSent += t.framesSent }
                c.retransmissionsSent += t.retransmissionsSent
                c.keyframeRequestsReceived += t.keyframeRequestsReceived
            }
            for t in p.received {
                c.packetsReceived += t.packetsReceived
                c.bytesReceived += t.bytesReceived
                c.packetsLost += max(0, t.packetsLost)
                if t.kind == "video" { c.framesDecoded += t.framesDecoded }
                c.nacksSent += t.nacksSent
                c.keyframeRequestsSent += t.keyframeRequestsSent
            }
        }
        return c
    }

    static func server(_ o: RunObservations) -> Server {
        var counts: ServerCounts?
        if let before = o.metricsBefore, let after = o.metricsAfter { counts = ServerCounts(before: before, after: after) }
        let forwarded = counts?.packetsForwarded
        var cpu: Double?
        if let before = o.cpuBefore, let after = o.cpuAfter, after.ticks >= before.ticks {
            cpu = Double(after.ticks - before.ticks) / Double(after.ticksPerSecond)
        }
        return Server(
            counts: counts, metricsError: o.metricsError, scrapeSeconds: o.scrapeSeconds,
            forwardedPacketsPerSecond: forwarded.flatMap { o.scrapeSeconds > 0 ? $0 / o.scrapeSeconds : nil },
            cpuSeconds: cpu,
            cpuSecondsPerForwardedPacket: cpu.flatMap { cpu in forwarded.flatMap { $0 > 0 ? cpu / $0 : nil } })
    }

    /// Fails on any room or join failure, any participant dropped during
    /// the run, a track whose receivers got nothing in the window, or a
    /// track whose loss (over all its receivers) passes `maxLoss`. When the
    /// load tester itself was saturated such failures are inconclusive: they
    /// may be its own starvation, which is never counted as the server's.
    static func verdict(
        configuration c: LoadTestConfiguration, rooms: Rooms, participants: Participants, tracks: [Track],
        tester: LoadTesterHealth? = nil
    ) -> Verdict {
        var reasons: [String] = []
        func codes(_ byCode: [String: Int]) -> String {
            byCode.sorted { $0.key < $1.key }.map { "\($0.key) x\($0.value)" }.joined(separator: ", ")
        }
        if !rooms.failures.isEmpty {
            reasons.append("\(rooms.failures.count) room(s) could not be created: \(rooms.failures.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; "))")
        }
        if participants.failed > 0 {
            reasons.append("\(participants.failed) participant(s) failed to join (\(codes(participants.failuresByCode)))")
        }
        if participants.disconnected > 0 {
            reasons.append("\(participants.disconnected) participant(s) were disconnected during the run (\(codes(participants.disconnectsByCode)))")
        }
        for track in tracks where track.subscribers > 0 && track.packetsReceived == 0 {
            reasons.append("\(track.kind) track \(track.trackSid) of \(track.publisher): its \(track.subscribers) receiver(s) got no packets in the window")
        }
        for track in tracks {
            if let loss = track.lossFraction, loss > c.maxLoss {
                reasons.append(String(format: "\(track.kind) track \(track.trackSid) of \(track.publisher): loss %.2f%% above --max-loss %.2f%%", loss * 100, c.maxLoss * 100))
            }
        }
        let expectedTracks = rooms.created * c.publishers * (c.audioOnly ? 1 : 2)
        if participants.failed == 0 && tracks.count < expectedTracks {
            reasons.append("\(tracks.count) published track(s) seen, \(expectedTracks) expected")
        }
        if let tester, tester.saturated, !reasons.isEmpty {
            reasons.insert(
                "inconclusive: the load tester itself was saturated (\(tester.reasons.joined(separator: "; "))); "
                    + "run fewer participants per process, or more --threads", at: 0)
            return Verdict(passed: false, reasons: reasons, inconclusive: true)
        }
        return Verdict(passed: reasons.isEmpty, reasons: reasons)
    }
}
