import Foundation

/// Every setting of one run, resolved: built-in defaults, then the scenario,
/// then the environment (credentials), then flags.
public struct LoadTestConfiguration: Sendable, Equatable, Codable {
    public var url: String = "http://127.0.0.1:7880"
    /// The cluster's other nodes (`--node`): rooms are created round-robin
    /// at `url` and these.
    public var nodes: [String] = []
    public var apiKey: String = "devkey"
    public var apiSecret: String = "devsecret"
    public var scenario: String?
    public var rooms = 1
    public var publishers = 1
    public var subscribers = 2
    public var audioOnly = false
    public var videoResolution = VideoResolution(width: 320, height: 240)
    public var videoBitrate = BitRate(bitsPerSecond: 300_000)
    public var videoFrameRate = 30
    /// Publishers send three VP8 layers (PROTOCOL.md section 7).
    public var simulcast = false
    /// Subscribers' render sizes; nil: no content preferences are sent.
    public var render: RenderMix?
    /// Seconds into the window when each subscriber changes size once.
    public var renderChangeAfter: Double?
    /// Subscribers' downlink groups (kbit/s, 0 = not shaped); nil: none shaped.
    public var downlinkKbps: DownlinkGroups?
    /// `vroom-impair` for the shaped groups; nil: found beside the tool or on PATH.
    public var impairPath: String?
    /// Where the participants' media sockets bind (`--media-bind-host`); nil: the SDK's default.
    public var mediaBindHost: String?
    /// The SDK's media transport policy (`--media-transport`): automatic, udp or tcp.
    public var mediaTransport = "automatic"
    public var duration: Double = 30
    public var ramp: Double = 5
    public var settle: Double = 2
    public var seed: UInt64 = 1
    public var decodeSample = 2
    public var maxLoss = 0.05
    public var serverPID: Int32?
    public var joinTimeout: Double = 20
    public var roomPrefix = "loadtest"
    /// `--threads`; nil: `defaultThreads`.
    public var threads: Int?
    /// `--processes`: this run spread over that many processes.
    public var processes = 1
    /// `--room-offset`: the first room's index.
    public var roomOffset = 0
    /// `--emit-observations`: raw observations instead of a report.
    public var emitObservations = false
    /// `--merge`: observation files to report on instead of running.
    public var mergeFiles: [String] = []
    public var json = false
    public var quiet = false

    public init() {}

    public struct Invalid: Error, CustomStringConvertible, Equatable {
        public var reason: String
        public var description: String { reason }
    }

    /// Participants in one room.
    public var participantsPerRoom: Int { publishers + subscribers }
    public var totalParticipants: Int { rooms * participantsPerRoom }

    /// Merges `scenario` (when given) and `options` over the defaults and
    /// checks the result. The secret is kept out of JSON reports (see `encode`).
    public static func resolve(
        options: LoadTestOptions, scenario: Scenario? = nil, scenarioName: String? = nil,
        environment: [String: String] = [:]
    ) throws -> LoadTestConfiguration {
        var c = LoadTestConfiguration()
        if let s = scenario {
            c.scenario = scenarioName
            c.rooms = s.rooms ?? c.rooms
            c.publishers = s.publishers ?? c.publishers
            c.subscribers = s.subscribers ?? c.subscribers
            c.audioOnly = s.audioOnly ?? c.audioOnly
            c.videoResolution = s.videoResolution ?? c.videoResolution
            c.videoBitrate = s.videoBitrate ?? c.videoBitrate
            c.videoFrameRate = s.videoFrameRate ?? c.videoFrameRate
            c.simulcast = s.simulcast ?? c.simulcast
            c.render = s.render ?? c.render
            c.renderChangeAfter = s.renderChangeAfter ?? c.renderChangeAfter
            c.downlinkKbps = s.downlinkKbps ?? c.downlinkKbps
            c.duration = s.duration ?? c.duration
            c.ramp = s.ramp ?? c.ramp
            c.settle = s.settle ?? c.settle
            c.seed = s.seed ?? c.seed
            c.decodeSample = s.decodeSample ?? c.decodeSample
            c.maxLoss = s.maxLoss ?? c.maxLoss
        }
        if let key = environment["VROOM_API_KEY"], !key.isEmpty { c.apiKey = key }
        if let secret = environment["VROOM_API_SECRET"], !secret.isEmpty { c.apiSecret = secret }
        let o = options
        c.url = o.url ?? c.url
        c.nodes = o.nodes
        c.apiKey = o.apiKey ?? c.apiKey
        c.apiSecret = o.apiSecret ?? c.apiSecret
        c.rooms = o.rooms ?? c.rooms
        c.publishers = o.publishers ?? c.publishers
        c.subscribers = o.subscribers ?? c.subscribers
        c.audioOnly = o.audioOnly ?? c.audioOnly
        c.videoResolution = o.videoResolution ?? c.videoResolution
        c.videoBitrate = o.videoBitrate ?? c.videoBitrate
        c.videoFrameRate = o.videoFrameRate ?? c.videoFrameRate
        c.simulcast = o.simulcast ?? c.simulcast
        c.render = o.render ?? c.render
        c.renderChangeAfter = o.renderChangeAfter ?? c.renderChangeAfter
        c.downlinkKbps = o.downlinkKbps ?? c.downlinkKbps
        c.impairPath = o.impairPath
        c.mediaBindHost = o.mediaBindHost
        c.mediaTransport = o.mediaTransport ?? c.mediaTransport
        c.duration = o.duration ?? c.duration
        c.ramp = o.ramp ?? c.ramp
        c.settle = o.settle ?? c.settle
        c.seed = o.seed ?? c.seed
        c.decodeSample = o.decodeSample ?? c.decodeSample
        c.maxLoss = o.maxLoss ?? c.maxLoss
        c.serverPID = o.serverPID
        c.joinTimeout = o.joinTimeout ?? c.joinTimeout
        c.roomPrefix = o.roomPrefix ?? c.roomPrefix
        c.threads = o.threads ?? c.threads
        c.processes = o.processes ?? c.processes
        c.roomOffset = o.roomOffset ?? c.roomOffset
        c.emitObservations = o.emitObservations
        c.mergeFiles = o.mergeFiles
        c.json = o.json
        c.quiet = o.quiet
        try c.validate()
        return c
    }

    /// Refuses settings that cannot make a meaningful run.
    public func validate() throws {
        func fail(_ reason: String) throws -> Never { throw Invalid(reason: reason) }
        func isBaseURL(_ text: String) -> Bool {
            guard let parsed = URL(string: text), let scheme = parsed.scheme else { return false }
            return ["http", "https"].contains(scheme) && parsed.host != nil
        }
        guard isBaseURL(url) else { try fail("--url must be an http(s) base URL, e.g. http://127.0.0.1:7880 (got \(url))") }
        for node in nodes where !isBaseURL(node) {
            try fail("--node must be an http(s) base URL, e.g. http://127.0.0.1:7890 (got \(node))")
        }
        if apiKey.isEmpty || apiSecret.isEmpty { try fail("--api-key and --api-secret must not be empty") }
        if rooms < 1 { try fail("--rooms must be at least 1") }
        if publishers < 1 { try fail("--publishers must be at least 1: without media there is nothing to measure") }
        if subscribers < 0 { try fail("--subscribers must not be negative") }
        if decodeSample < 0 { try fail("--decode-sample must not be negative") }
        if !(duration > 0) { try fail("--duration must be positive") }
        if !(ramp > 0) { try fail("--ramp must be positive (joins per second)") }
        if !(settle >= 0) { try fail("--settle must not be negative") }
        if !(joinTimeout > 0) { try fail("--join-timeout must be positive") }
        if let threads, !(1...1024).contains(threads) { try fail("--threads must be in 1...1024") }
        if !(1...64).contains(processes) { try fail("--processes must be in 1...64") }
        if processes > rooms { try fail("--processes (\(processes)) cannot exceed --rooms (\(rooms)): each process takes whole rooms") }
        if processes > 1 && downlinkKbps != nil { try fail("--downlink-kbps runs in one process: not with --processes") }
        if processes > 1 && (emitObservations || !mergeFiles.isEmpty) {
            try fail("--processes spreads one run here: not with --emit-observations or --merge")
        }
        if roomOffset < 0 { try fail("--room-offset must not be negative") }
        if !(0...1).contains(maxLoss) { try fail("--max-loss is a fraction in 0...1 (got \(maxLoss))") }
        if !(1...60).contains(videoFrameRate) { try fail("--video-frame-rate must be in 1...60") }
        if !Self.mediaTransports.contains(mediaTransport) {
            try fail("--media-transport is one of \(Self.mediaTransports.joined(separator: ", ")) (got \(mediaTransport))")
        }
        if let pid = serverPID, pid <= 0 { try fail("--server-pid must be a process id") }
        if audioOnly && (simulcast || render != nil) { try fail("--simulcast and --render need video: not with --audio-only") }
        if let after = renderChangeAfter {
            guard let render else { try fail("--render-change-after needs --render") }
            if render.shares.count < 2 { try fail("--render-change-after needs at least two sizes in --render to change between") }
            if !(after > 0 && after < duration) {
                try fail("--render-change-after must be inside the window: 0 < seconds < --duration (\(duration))")
            }
        }
        if downlinkKbps != nil && audioOnly { try fail("--downlink-kbps measures video: not with --audio-only") }
        if downlinkKbps != nil && subscribers < 1 { try fail("--downlink-kbps needs subscribers") }
        // Unique names are at most 128 characters (PROTOCOL.md 53101); leave
        // room for "-<run id>-<room index>".
        if roomPrefix.isEmpty || roomPrefix.count > 64 || roomPrefix.contains("/") {
            try fail("--room-prefix must be 1...64 characters without /")
        }
    }

    /// Subscribers of a room that decode video: the first `decodeSample`
    /// (all of them when there are fewer).
    /// With `render`, every subscriber decodes: the layer received is read
    /// from the decoded frames' size.
    /// So does every subscriber with `downlinkKbps`: freezes are counted on decoded frames.
    public var decodingSubscribersPerRoom: Int {
        audioOnly ? 0 : render != nil || downlinkKbps != nil ? subscribers : min(decodeSample, subscribers)
    }

    /// Event loop threads for `cores` cores without `--threads`: half of
    /// them, at least 2 (a server on the same machine needs the rest).
    public static func defaultThreads(cores: Int) -> Int { max(2, cores / 2) }

    /// The SDK's `MediaTransportPolicy` names.
    public static let mediaTransports = ["automatic", "udp", "tcp"]

    enum CodingKeys: String, CodingKey {
        case url, nodes, apiKey, scenario, rooms, publishers, subscribers, audioOnly, videoResolution, videoBitrate
        case videoFrameRate, duration, ramp, settle, seed, decodeSample, maxLoss, serverPID, joinTimeout, roomPrefix
        case simulcast, render, renderChangeAfter, downlinkKbps, impairPath, mediaTransport, threads, processes
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        url = try c.decode(String.self, forKey: .url)
        nodes = try c.decodeIfPresent([String].self, forKey: .nodes) ?? []
        apiKey = try c.decode(String.self, forKey: .apiKey)
        apiSecret = ""
        scenario = try c.decodeIfPresent(String.self, forKey: .scenario)
        rooms = try c.decode(Int.self, forKey: .rooms)
        publishers = try c.decode(Int.self, forKey: .publishers)
        subscribers = try c.decode(Int.self, forKey: .subscribers)
        audioOnly = try c.decode(Bool.self, forKey: .audioOnly)
        videoResolution = try c.decode(VideoResolution.self, forKey: .videoResolution)
        videoBitrate = try c.decode(BitRate.self, forKey: .videoBitrate)
        videoFrameRate = try c.decode(Int.self, forKey: .videoFrameRate)
        simulcast = try c.decodeIfPresent(Bool.self, forKey: .simulcast) ?? false
        render = try c.decodeIfPresent(RenderMix.self, forKey: .render)
        renderChangeAfter = try c.decodeIfPresent(Double.self, forKey: .renderChangeAfter)
        downlinkKbps = try c.decodeIfPresent(DownlinkGroups.self, forKey: .downlinkKbps)
        impairPath = try c.decodeIfPresent(String.self, forKey: .impairPath)
        mediaTransport = try c.decodeIfPresent(String.self, forKey: .mediaTransport) ?? "automatic"
        duration = try c.decode(Double.self, forKey: .duration)
        ramp = try c.decode(Double.self, forKey: .ramp)
        settle = try c.decode(Double.self, forKey: .settle)
        seed = try c.decode(UInt64.self, forKey: .seed)
        decodeSample = try c.decode(Int.self, forKey: .decodeSample)
        maxLoss = try c.decode(Double.self, forKey: .maxLoss)
        serverPID = try c.decodeIfPresent(Int32.self, forKey: .serverPID)
        joinTimeout = try c.decode(Double.self, forKey: .joinTimeout)
        roomPrefix = try c.decode(String.self, forKey: .roomPrefix)
        threads = try c.decodeIfPresent(Int.self, forKey: .threads)
        processes = try c.decodeIfPresent(Int.self, forKey: .processes) ?? 1
    }
}
