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
        let c = configuration
        let baseURL = c.url.hasSuffix("/") ? String(c.url.dropLast()) : c.url
        guard let url = URL(string: baseURL) else { throw SetupFailure(description: "bad --url \(c.url)") }
        // Two threads carry every participant's signaling and media (and the
        // REST calls): the machine's other cores belong to the server.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let http = HTTPClient(eventLoopGroup: group)
        do {
            let report = try await run(url: url, baseURL: baseURL, group: group, http: http)
            try? await http.shutdown()
            try? await group.shutdownGracefully()
            return report
        } catch {
            try? await http.shutdown()
            try? await group.shutdownGracefully()
            throw error
        }
    }

    private func run(url: URL, baseURL: String, group: MultiThreadedEventLoopGroup, http: HTTPClient) async throws -> LoadTestReport {
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
        var roomFailures: [String: String] = [:]
        for room in plan.rooms {
            do {
                try await provisioner.create(room)
            } catch let failure as RoomProvisioner.Failure {
                // Wrong credentials fail every room alike: stop here, not after a ramp of refusals.
                if failure.status == 401 { throw SetupFailure(description: "REST refused the API key and secret: \(failure)") }
                roomFailures[room.name] = failure.description
            } catch {
                throw SetupFailure(description: "cannot reach \(baseURL): \(error)")
            }
        }

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
                    let record = await participant.join(url: url, token: token, configuration: c, group: group, timeout: c.joinTimeout)
                    await progress.joinFinished(record)
                }
            }
        }

        // 4. Settle (late subscribers get their first keyframe), then measure.
        await progress.setPhase(.settling)
        try? await Task.sleep(for: .milliseconds(Int64(c.settle * 1000)))
        await progress.setPhase(.measuring)
        let windowStart = await Self.snapshots(participants)
        let windowOpened = clock.now
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
        let windowSeconds = Self.seconds(clock.now - windowOpened)

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

        return LoadTestReport(observations: RunObservations(
            configuration: c, startedAt: startedAt, rooms: plan.rooms, roomFailures: roomFailures, joins: joins,
            windowStart: windowStart, windowEnd: windowEnd, windowSeconds: windowSeconds,
            metricsBefore: metricsBefore, metricsAfter: metricsAfter, metricsError: metricsError,
            scrapeSeconds: scrapeSeconds, cpuBefore: cpuBefore, cpuAfter: cpuAfter))
    }

    /// Everyone's counters: receivers first, then publishers, so a
    /// publisher's frames sent is never behind what its receivers read.
    static func snapshots(_ participants: [LoadParticipant]) async -> [ParticipantSnapshot] {
        var out: [ParticipantSnapshot] = []
        for role in [LoadPlan.Role.subscriber, .publisher] {
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
