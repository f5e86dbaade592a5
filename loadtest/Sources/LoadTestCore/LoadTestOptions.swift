import ArgumentParser

/// The command line of `vroom-loadtest`. Every setting is optional here so a
/// scenario's value stands unless a flag overrides it; the defaults live in
/// `LoadTestConfiguration`.
public struct LoadTestOptions: ParsableArguments, Sendable {
    @Option(help: "Server base URL (REST, /metrics and the signaling socket). Default http://127.0.0.1:7880.")
    public var url: String?

    @Option(help: "API key: signs tokens and authenticates REST (also VROOM_API_KEY; default devkey).")
    public var apiKey: String?

    @Option(help: "API secret (also VROOM_API_SECRET; default devsecret).")
    public var apiSecret: String?

    @Option(help: "Load scenario: NAME (loadtest/scenarios/NAME.json) or a path. Flags override it.")
    public var scenario: String?

    @Option(help: "Rooms to create. Default 1.")
    public var rooms: Int?

    @Option(help: "Publishers per room (each sends audio, and video unless --audio-only). Default 1.")
    public var publishers: Int?

    @Option(help: "Subscribers per room (receive only). Default 2.")
    public var subscribers: Int?

    @Flag(inversion: .prefixedNo, help: "Publish audio only (no video). Default off.")
    public var audioOnly: Bool?

    @Option(help: "Video size WxH. Default 320x240.")
    public var videoResolution: VideoResolution?

    @Option(help: "VP8 target bitrate: 300000, 300k or 1.5M bit/s. Default 300k.")
    public var videoBitrate: BitRate?

    @Option(help: "Video frames per second. Default 30.")
    public var videoFrameRate: Int?

    @Flag(inversion: .prefixedNo, help: "Publishers send VP8 simulcast: 3 layers at 1/4, 1/2 and full size. Default off.")
    public var simulcast: Bool?

    @Option(help: "Subscribers' render sizes as a mix, e.g. 320x180:50%,1280x720:50% (each subscriber gets one; all subscribers decode video). Default none.")
    public var render: RenderMix?

    @Option(help: "Seconds into the window after which each subscriber switches once to the next size of --render. Default never.")
    public var renderChangeAfter: Double?

    @Option(help: ArgumentHelp(
        "Subscribers' downlinks in kbit/s per group, e.g. 250,800,0 (0 = not shaped): subscriber i of each room is in group i mod N.",
        discussion: "Each shaped subscriber's media goes through a vroom-impair of its own (--rate-kbps N --directions down, its default 200 ms queue). Every subscriber then decodes video; the report gets a Downlink section: the server's estimate (/Stats available_outgoing_bitrate), the video received, the layer forwarded, trackSwitchedOff events and freezes.",
        valueName: "kbps,..."))
    public var downlinkKbps: DownlinkGroups?

    @Option(help: "The vroom-impair executable for --downlink-kbps. Default: the one beside vroom-loadtest, else on PATH.")
    public var impairPath: String?

    @Option(help: "Seconds to measure once every participant has joined. Default 30.")
    public var duration: Double?

    @Option(help: "Joins per second while ramping up. Default 5.")
    public var ramp: Double?

    @Option(help: "Seconds to wait after the last join before measuring (first keyframes). Default 2.")
    public var settle: Double?

    @Option(help: "Seed for the join order and the publishers' tones. Default 1.")
    public var seed: UInt64?

    @Option(help: "Subscribers per room that decode video (the rest count and check packets). Default 2.")
    public var decodeSample: Int?

    @Option(help: "Highest packet loss fraction (0...1) before the exit status is non-zero. Default 0.05.")
    public var maxLoss: Double?

    @Option(name: .customLong("node"), help: "Another node of a cluster (base URL; repeat for each): rooms are created round-robin at --url and these, so a cluster's rooms spread over its nodes.")
    public var nodes: [String] = []

    @Option(help: "Server process id: report its CPU seconds over the run (local server, Linux /proc).")
    public var serverPID: Int32?

    @Option(help: "Seconds a join may take before it counts as failed. Default 20.")
    public var joinTimeout: Double?

    @Option(help: "Local address the participants' media sockets bind to: 0.0.0.0 (default), ::1 or another IPv6 address for media over IPv6 (the server must announce one).")
    public var mediaBindHost: String?

    @Option(help: "Media transport of every participant: automatic (UDP, then ICE-TCP when UDP goes unanswered), udp or tcp (ICE-TCP only). Default automatic.")
    public var mediaTransport: String?

    @Option(help: "Threads of the event loop group that carries every participant's signaling and media. Default: half the machine's cores, at least 2 (the rest are the server's when it runs here).")
    public var threads: Int?

    @Option(help: "Spread the run over N processes of this tool on this machine (each with its share of the rooms, joining at its share of --ramp), with one merged report. Default 1.")
    public var processes: Int?

    @Option(help: "Number this run's rooms from N (identities p0-rN...): runs merged with --merge need distinct ones. Default 0.")
    public var roomOffset: Int?

    @Flag(help: "Print the run's raw observations as JSON on stdout instead of a report, for --merge (and the processes of --processes).")
    public var emitObservations = false

    @Option(name: .customLong("merge"), help: "A file of --emit-observations output from a run elsewhere (repeat for each): print one report of them all, running nothing. The other flags describe the whole load (its --rooms is the total).")
    public var mergeFiles: [String] = []

    @Option(help: "Prefix of the created rooms' unique names. Default loadtest.")
    public var roomPrefix: String?

    @Flag(help: "Print the report as JSON on stdout (the table goes to stderr).")
    public var json = false

    @Flag(help: "No live progress line on stderr.")
    public var quiet = false

    @Option(help: "Log level of the SDK's messages on stderr: trace, debug, info, notice, warning, error, critical. Default warning.")
    public var logLevel: String = "warning"

    public init() {}
}
