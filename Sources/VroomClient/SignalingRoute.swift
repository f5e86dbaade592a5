/// Where the signaling socket goes (PROTOCOL.md 3.6 and 8): the URL that
/// `Room.connect` was given, the redirects a `join` follows, the node a
/// `reconnect` moves the session to, and the URLs a resume tries in turn
/// after the socket dropped. It decides; `RoomCore` opens the sockets.
struct SignalingRoute: Sendable, Equatable {
    /// A join follows at most this many redirects (PROTOCOL.md 8); the
    /// next one is an error. Three covers a join that reaches a node just
    /// as its room moves (two hops) with one to spare, and stops a loop
    /// between misconfigured nodes within a second.
    static let maximumRedirects = 3

    /// The signaling URL `Room.connect` was given: a load balancer, or any node.
    let origin: String
    /// `ConnectOptions.fallbackURLs` as signaling URLs.
    let fallbacks: [String]
    /// Where the socket that is open, or opening, goes.
    private(set) var current: String
    /// Redirects followed since the last `joined` or the last resume attempt began.
    private(set) var redirects = 0
    /// The node the session lives on as far as this client knows: where
    /// it last joined, or where a `reconnect` sent it. nil before `joined`.
    private(set) var home: String?
    /// Resume attempts since the last `joined` (or `reconnect`).
    private var resumeAttempts = 0

    init(origin: String, fallbacks: [String] = []) {
        self.origin = origin
        self.fallbacks = fallbacks
        current = origin
    }

    enum RedirectDecision: Equatable {
        /// Join again at this URL.
        case follow(String)
        /// One redirect too many: the attempt fails with this error.
        case refuse(VideoError)
    }

    /// The server answered `join` with `redirect`.
    mutating func redirect(to url: String) -> RedirectDecision {
        guard redirects < Self.maximumRedirects else {
            return .refuse(
                .signalingConnectionError(
                    "redirected more than \(Self.maximumRedirects) times (the last redirect was to \(url))"))
        }
        redirects += 1
        current = url
        return .follow(url)
    }

    /// `joined` arrived on the socket to `current`.
    mutating func joined() {
        home = current
        redirects = 0
        resumeAttempts = 0
    }

    /// The server said `reconnect`: the session resumes at `url` first.
    mutating func move(to url: String) {
        home = url
        resumeAttempts = 0
    }

    /// The URLs a resume tries, first to last: the node the session lives
    /// on, then the URL given to `connect` (a load balancer sends the
    /// resume to a live node), then the fallbacks; each once.
    var resumeURLs: [String] {
        var urls: [String] = []
        for url in [home ?? origin, origin] + fallbacks where !urls.contains(url) {
            urls.append(url)
        }
        return urls
    }

    /// The URL for the next resume attempt (round robin over `resumeURLs`),
    /// which becomes `current`; it may follow its own redirects.
    mutating func nextResumeURL() -> String {
        let urls = resumeURLs
        current = urls[resumeAttempts % urls.count]
        resumeAttempts += 1
        redirects = 0
        return current
    }
}
