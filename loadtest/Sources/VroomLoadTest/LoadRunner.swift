import AccessTokens
import AsyncHTTPClient
import Foundation
import LoadTestCore
import VroomClient
import NIOCore
import NIOPosix

/// Runs one load test: scrape, create rooms, ramp joins, settle, measure,
/// scrape again, leave, end rooms; returns the report.
struct LoadRunner: Sendable {
    let configuration: LoadTestConfiguration

    struct SetupFailure: Error, CustomStringConvertible {
        var description: String
    }

    func run() async throws -> LoadTestReport {
        LoadTestReport(observations: try await observe())
    }

    /// `body` with an event loop group of `threads` threads and an HTTP
    /// client on it, both shut down after, whatever `body` did.
    static func withClient<T: Sendable>(
        threads: Int, _ body: (MultiThreadedEventLoopGroup, HTTPClient) async throws -> T
    ) async throws -> T {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        let http = HTTPClient(eventLoopGroup: group)
        let result: Result<T, any Error>
        do { result = .success(try await body(group, http)) } catch { result = .failure(error) }
        try? await http.shutdown()
        try? await group.shutdownGracefully()
        return try result.get()
    }

    /// The run, as plain observations (`--emit-observations` prints them).
    func observe() async throws -> RunObservations {
        let c = configuration
        let baseURL = Self.trimmed(c.url)
        guard let url = URL(string: baseURL) else { throw SetupFailure(description: "bad --url \(c.url)") }
        // These threads carry every participant's signaling and media (and
        // the REST calls): by default half the cores; the rest are the
        // server's when it runs on this machine.
        let threads = c.threads ?? LoadTestConfiguration.defaultThreads(cores: System.coreCount)
        return try await Self.withClient(threads: threads) { group, http in
            try await run(url: url, baseURL: baseURL, group: group, http: http)
        }
    }

    private func run(url: URL, baseURL: String, group: MultiThreadedEventLoopGroup, http: HTTPClient) async throws -> RunObservations {
        let c = configuration
        let startedAt = Date()
        let clock = ContinuousClock()
        let runStart = clock.now
        let runID = String(UInt64(startedAt.timeIntervalSince1970 * 1000) % 2_821_109_907_456, radix: 36)  // 36^8: 8 characters
        let plan = LoadPlan(configuration: c, runID: runID)
        let progress = ProgressReporter(enabled: !c.quiet, planned: plan.joins.count, start: runStart)

        // 1. The server's counts and CPU before anything happens.
        let scraper = MetricsScraper(http: http, baseURL: baseURL)
        var metricsError: String?
        var metricsBefore: MetricsSnapshot?
        do { metricsBefore = try await scraper.scrape() } catch { metricsError = "before the run: \(error)" }
        let cpuBefore = c.serverPID.flatMap(ProcessCPUTime.read(pid:))
        if let pid = c.serverPID, cpuBefore == nil {
            throw SetupFailure(description: "--server-pid \(pid): no /proc/\(pid)/stat (is the server local and running?)")
        }
        let scrapeStart = clock.now

        // 2. Rooms, through REST.
        let provisioner = RoomProvisioner(http: http, baseURL: baseURL, apiKey: c.apiKey, apiSecret: c.apiSecret)
        // A cluster (`--node`): each room is created at the next node in turn,
        // which places it there (PROTOCOL.md section 8).
        let creators = [provisioner] + c.nodes.map {
            RoomProvisioner(http: http, baseURL: Self.trimmed($0), apiKey: c.apiKey, apiSecret: c.apiSecret)
        }
        var roomFailures: [String: String] = [:]
        for (index, room) in plan.rooms.enumerated() {
            do {
                try await creators[index % creators.count].create(room)
            } catch let failure as RoomProvisioner.Failure {
                // Wrong credentials fail every room alike: stop here, not after a ramp of refusals.
                if failure.status == 401 { throw SetupFailure(description: "REST refused the API key and secret: \(failure)") }
                roomFailures[room.name] = failure.description
            } catch {
                throw SetupFailure(description: "cannot reach \(baseURL): \(error)")
            }
        }

        // 2b. --downlink-kbps: a relay of its own for each shaped subscriber.
        let sampler = StatsSampler(http: http, baseURL: baseURL, apiKey: c.apiKey, apiSecret: c.apiSecret)
        let relays = try await Self.startRelays(plan: plan, configuration: c, url: url, sampler: sampler)

        // The load tester's own health from the first join to the window's end.
        let lagProbe = EventLoopLagProbe(group: group)
        lagProbe.start()
        let ownCPUBefore = ProcessCPUTime.read(pid: getpid())
        let rampStart = clock.now

        // 3. Ramp: one join every 1/ramp s, each waiting for its outcome in its own task.
        let issuer = AccessTokenIssuer(apiKey: c.apiKey, apiSecret: c.apiSecret)
        let tokenLifetime = Double(plan.joins.count) / c.ramp + c.joinTimeout + c.settle + c.duration + 600
        let participants = plan.joins.map(LoadParticipant.init(plan:))
        await progress.setPhase(.ramping)
        let progressTask = Task { await progress.run(participants: participants) }
        await withTaskGroup(of: Void.self) { joins in
            for (index, participant) in participants.enumerated() {
                let due = runStart + .milliseconds(Int64(LoadPlan.joinOffset(index: index, ramp: c.ramp) * 1000))
                try? await Task.sleep(until: due, clock: clock)
                if roomFailures[participant.plan.roomName] != nil {
                    await progress.joinFailed(participant)
                    continue
                }
                joins.addTask {
                    // Valid from 10 s ago: a server clock a little behind ours still accepts it.
                    let now = Date()
                    guard let token = try? await issuer.sign(
                        identity: participant.plan.identity, room: participant.plan.roomName, ttl: tokenLifetime,
                        now: now, notBefore: now.addingTimeInterval(-10), subject: "vroom-loadtest")
                    else {
                        await progress.joinFailed(participant)
                        return
                    }
                    let relay = relays[participant.plan.identity].map { "127.0.0.1:\($0.port)" }
                    let record = await participant.join(
                        url: url, token: token, configuration: c, group: group, timeout: c.joinTimeout, mediaServer: relay)
                    await progress.joinFinished(record)
                }
            }
        }

        // 4. Settle (late subscribers get their first keyframe), then measure.
        await progress.setPhase(.settling)
        try? await Task.sleep(for: .milliseconds(Int64(c.settle * 1000)))
        await progress.setPhase(.measuring)
        let windowStart = await Self.snapshots(participants)
        // Each node the participants are connected through: its CPU over the window.
        let nodes = Set(windowStart.compactMap(\.node))
        let nodeCPUAtStart = await Self.nodeCPUSeconds(nodes, http: http, scheme: url.scheme ?? "http")
        let windowOpened = clock.now
        // --downlink-kbps: the server's estimate and layers, once a second through the window.
        let liveRooms = plan.rooms.map(\.name).filter { roomFailures[$0] == nil }
        let sampling = c.downlinkKbps.map { _ in Task { await sampler.run(rooms: liveRooms, interval: .seconds(1)) } }
        // --render-change-after: each subscriber asks its other size once, inside the window.
        let renderChange = c.renderChangeAfter.map { after in
            Task {
                try? await Task.sleep(until: windowOpened + .milliseconds(Int64(after * 1000)), clock: clock)
                guard !Task.isCancelled else { return }
                for participant in participants where participant.plan.changedRenderSize != nil {
                    await participant.changeRenderSize()
                }
            }
        }
        try? await Task.sleep(for: .milliseconds(Int64(c.duration * 1000)))
        renderChange?.cancel()
        await progress.setPhase(.finishing)
        let windowEnd = await Self.snapshots(participants)
        let nodeCPUAtEnd = await Self.nodeCPUSeconds(nodes, http: http, scheme: url.scheme ?? "http")
        sampling?.cancel()
        let downlinkSeries = await sampling?.value ?? [:]
        let windowSeconds = Self.seconds(clock.now - windowOpened)
        let lags = lagProbe.stop()
        let ownCPUAfter = ProcessCPUTime.read(pid: getpid())
        let tester = LoadTesterHealth.Sample(
            host: ProcessInfo.processInfo.hostName, eventLoopThreads: lagProbe.loopCount, cores: System.coreCount,
            cpuSeconds: ownCPUBefore.flatMap { before in ownCPUAfter.map { $0.seconds - before.seconds } },
            seconds: Self.seconds(clock.now - rampStart), lagMilliseconds: lags)

        // 5. The server's counts and CPU after.
        var metricsAfter: MetricsSnapshot?
        do { metricsAfter = try await scraper.scrape() } catch { metricsError = (metricsError.map { $0 + "; " } ?? "") + "after the run: \(error)" }
        let cpuAfter = c.serverPID.flatMap(ProcessCPUTime.read(pid:))
        let scrapeSeconds = Self.seconds(clock.now - scrapeStart)
        progressTask.cancel()
        await progress.finish()

        // 6. Outcomes (before leaving, so our own disconnects are not counted), leave, end rooms.
        var joins: [JoinRecord] = []
        for participant in participants {
            var record = await participant.record
            if roomFailures[record.roomName] != nil { record.failure = "room" }
            joins.append(record)
        }
        await withTaskGroup(of: Void.self) { leaving in
            for participant in participants { leaving.addTask { await participant.leave() } }
        }
        for room in plan.rooms where roomFailures[room.name] == nil {
            try? await provisioner.complete(room)
        }
        var relayQueueDrops: [String: Int] = [:]
        for (identity, relay) in relays { relayQueueDrops[identity] = await relay.stop() }

        var observations = RunObservations(
            configuration: c, startedAt: startedAt, rooms: plan.rooms, roomFailures: roomFailures, joins: joins,
            windowStart: windowStart, windowEnd: windowEnd, windowSeconds: windowSeconds,
            metricsBefore: metricsBefore, metricsAfter: metricsAfter, metricsError: metricsError,
            scrapeSeconds: scrapeSeconds, cpuBefore: cpuBefore, cpuAfter: cpuAfter,
            downlinkSeries: downlinkSeries, relayQueueDrops: relayQueueDrops)
        observations.tester = tester
        for (node, end) in nodeCPUAtEnd {
            if let start = nodeCPUAtStart[node], end >= start { observations.nodeCPUSeconds[node] = end - start }
        }
        return observations
    }

    /// A base URL without its trailing slash.
    static func trimmed(_ url: String) -> String {
        url.hasSuffix("/") ? String(url.dropLast()) : url
    }

    /// `process_cpu_seconds_total` of each node (`host:port`) from its
    /// `/metrics`; a node that does not answer is left out.
    static func nodeCPUSeconds(_ nodes: Set<String>, http: HTTPClient, scheme: String) async -> [String: Double] {
        var seconds: [String: Double] = [:]
        for node in nodes {
            let scraper = MetricsScraper(http: http, baseURL: "\(scheme)://\(node)")
            if let value = try? await scraper.scrape().sum("process_cpu_seconds_total") { seconds[node] = value }
        }
        return seconds
    }

    /// A `vroom-impair` per subscriber with a shaped downlink, toward the
    /// server's one media port (`/healthz`) on the URL's IPv4 host. With
    /// several media workers the port of a room's worker is not known
    /// before its subscriber connects, so the run needs one worker.
    static func startRelays(
        plan: LoadPlan, configuration c: LoadTestConfiguration, url: URL, sampler: StatsSampler
    ) async throws -> [String: DownlinkRelay] {
        let shaped = plan.joins.filter { ($0.downlinkKbps ?? 0) > 0 }
        guard !shaped.isEmpty else { return [:] }
        guard let executable = DownlinkRelay.executable(configured: c.impairPath) else {
            throw SetupFailure(description: "--downlink-kbps needs vroom-impair: build it (swift build --product vroom-impair) or give --impair-path")
        }
        let ports: [Int]
        do { ports = try await sampler.mediaPorts() } catch { throw SetupFailure(description: "--downlink-kbps: \(error)") }
        guard ports.count == 1, let port = ports.first else {
            throw SetupFailure(description: "--downlink-kbps needs a server with one media port (vroom-server --rtc-workers 1); it has \(ports)")
        }
        let host = url.host == "localhost" ? "127.0.0.1" : url.host ?? ""
        guard host.split(separator: ".").count == 4, host.split(separator: ".").allSatisfy({ UInt8($0) != nil }) else {
            throw SetupFailure(description: "--downlink-kbps needs --url with an IPv4 address (vroom-impair targets one), got \(host)")
        }
        var relays: [String: DownlinkRelay] = [:]
        for (index, subscriber) in shaped.enumerated() {
            do {
                relays[subscriber.identity] = try await DownlinkRelay(
                    executable: executable, target: "\(host):\(port)", kilobitsPerSecond: subscriber.downlinkKbps ?? 0,
                    seed: c.seed &+ UInt64(index))
            } catch {
                for relay in relays.values { _ = await relay.stop() }
                throw SetupFailure(description: "--downlink-kbps: \(error)")
            }
        }
        return relays
    }

    /// Time for the frames a publisher sent by its snapshot to reach its
    /// receivers: loopback latency on a loaded host stays well under it
    /// (the smoke tests' median is under 200 ms).
    static let arrivalGrace = Duration.milliseconds(500)

    /// Everyone's counters: publishers first, then receivers after
    /// ``arrivalGrace``. The report counts the frames a receiver read among
    /// those sent by its publisher's snapshot, so a frame still in flight
    /// (or sent while the snapshots are taken) is not counted missing.
    static func snapshots(_ participants: [LoadParticipant]) async -> [ParticipantSnapshot] {
        var out: [ParticipantSnapshot] = []
        for role in [LoadPlan.Role.publisher, .subscriber] {
            if role == .subscriber { try? await Task.sleep(for: arrivalGrace) }
            await withTaskGroup(of: ParticipantSnapshot?.self) { group in
                for participant in participants where participant.plan.role == role {
                    group.addTask { await participant.snapshot() }
                }
                for await snapshot in group { if let snapshot { out.append(snapshot) } }
            }
        }
        return out
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
