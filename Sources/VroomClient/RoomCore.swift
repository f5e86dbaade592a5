import Foundation
import Logging
import NIOCore
import Synchronization

/// The engine room behind `Room`: the signaling session, the media engine,
/// the participants, reconnection and interruptions. Everything it owns is
/// touched on `eventLoop` only; public objects read snapshots from `shared`.
final class RoomCore: @unchecked Sendable, SystemNotificationObserver {
    // @unchecked: the `var`s below are confined to `eventLoop` (every entry
    // point hops there first); `shared` and `streams` are locked.

    /// What the public objects read from any thread.
    struct Shared {
        var state: Room.State = .connecting
        var name: String
        var sid: String?
        var localParticipant: LocalParticipant?
        var remoteParticipants: [RemoteParticipant] = []
        /// The signaling URL of the node the session last joined through.
        var signalingURL: String?
        weak var delegate: (any RoomDelegate)?
        weak var room: Room?
    }

    let shared: Mutex<Shared>
    let streams = RoomEventStreams()
    let eventLoop: any EventLoop
    let options: ConnectOptions
    let logger: Logger
    var route: SignalingRoute

    // Signaling.
    var channel: SignalingChannel?
    var channelGeneration = 0
    /// The current socket's WebSocket handshake is done.
    var channelIsOpen = false
    var joinRequestID: String?
    var isJoined = false
    var hasConnectedOnce = false
    var sessionToken: String?
    var reconnectWindow: TimeAmount = .seconds(30)
    var reconnectDeadline: NIODeadline?
    var reconnectAttempts = 0
    var serverEnded = false
    var requestCounter = 0
    var lastServerFrame = NIODeadline.now()
    var pinger: PacedTimer?
    var connectTimeout: Scheduled<Void>?
    /// Tests: how long the first resume attempt waits (see `dropSignaling`).
    var reconnectHold: TimeAmount = .zero

    // Media.
    var engine: MediaEngine?
    var publishRequestID: String?
    var publishAgain = false
    var publisherRestartPending = false
    var publishedNames: Set<String> = []
    var offeredNames: [String] = []
    var mediaFailures: Set<MediaConnectionRole> = []
    var videoSenders: [String: VideoSender] = [:]
    var audioSenders: [String: AudioSender] = [:]
    var remoteVideo: [String: RemoteVideoReceiver] = [:]
    var remoteAudio: [String: RemoteAudioReceiver] = [:]
    var subscribedTracks: [String: ServerSignal.SubscribedTrack] = [:]

    // Interruptions.
    var cameraInterruption: CameraInterruptionReason?
    var cameraInterruptedByBackground = false
    var audioInterruption: String??

    var isFinished: Bool { shared.withLock { $0.state == .disconnected } }

    init(url: URL, options: ConnectOptions, eventLoop: any EventLoop) {
        self.options = options
        self.eventLoop = eventLoop
        self.shared = Mutex(Shared(name: options.roomName ?? ""))
        self.route = SignalingRoute(
            origin: Self.signalingURL(for: url), fallbacks: options.fallbackURLs.map(Self.signalingURL(for:)))
        var logger = Logger(label: "vroom.client")
        logger[metadataKey: "room"] = "\(options.roomName ?? "-")"
        self.logger = logger
    }

    /// `http://host:port/base` → `ws://host:port/base/v1/signal`.
    static func signalingURL(for url: URL) -> String {
        var text = url.absoluteString
        if text.hasPrefix("https://") {
            text = "wss://" + text.dropFirst(8)
        } else if text.hasPrefix("http://") {
            text = "ws://" + text.dropFirst(7)
        }
        while text.hasSuffix("/") { text.removeLast() }
        return text.hasSuffix("/v1/signal") ? text : text + "/v1/signal"
    }

    // MARK: Entry points (any thread)

    func start(room: Room, delegate: (any RoomDelegate)?) {
        shared.withLock {
            $0.room = room
            $0.delegate = delegate
        }
        options.notificationCenter.add(self)
        eventLoop.execute {
            self.openChannel()
            self.connectTimeout = self.eventLoop.scheduleTask(in: TimeAmount(self.options.connectTimeout)) {
                guard !self.hasConnectedOnce, !self.isFinished else { return }
                self.failToConnect(.signalingConnectionError("no answer to join within \(self.options.connectTimeout)"))
            }
        }
        for track in options.audioTracks { observe(track.state, name: track.name) }
        for track in options.videoTracks { observe(track.state, name: track.name) }
    }

    func disconnect() {
        eventLoop.execute {
            guard !self.isFinished else { return }
            self.channel?.send(.leave)
            self.finish(error: nil, event: .disconnected(nil))
        }
    }

    /// Tests: drop the signaling socket as a network failure would (no
    /// `leave`, no close handshake) and hold the first resume attempt.
    func dropSignaling(holdingReconnectFor hold: TimeAmount = .zero) {
        eventLoop.execute {
            self.reconnectHold = hold
            self.channel?.abort()
        }
    }

    func receive(_ notification: SystemNotification) {
        eventLoop.execute { self.handle(notification) }
    }

    func sendMessage(_ content: String, contentType: String, to identities: [String]?) -> String {
        let id = "m-" + UUID().uuidString.prefix(8).lowercased()
        eventLoop.execute {
            guard self.isJoined, let channel = self.channel else {
                self.emit(.messageFailed(id: id, VideoError(code: 409, message: "not-joined")))
                return
            }
            channel.send(.sendMessage(id: id, content: content, contentType: contentType, to: identities))
        }
        return id
    }

    func localTracksChanged() {
        eventLoop.execute {
            if let participant = self.shared.withLock({ $0.localParticipant }) {
                for track in participant.audioTracks { self.observe(track.state, name: track.name) }
                for track in participant.videoTracks { self.observe(track.state, name: track.name) }
            }
            self.negotiatePublish()
        }
    }

    // MARK: Events out

    func setState(_ state: Room.State) {
        shared.withLock { $0.state = state }
    }

    /// Yields to `Room.events` and calls the delegates on the delegate queue.
    func emit(_ event: RoomEvent) {
        streams.yield(event)
        let (room, delegate, local) = shared.withLock { ($0.room, $0.delegate, $0.localParticipant) }
        let participantDelegate = event.remoteParticipant?.delegate
        let localDelegate = local?.delegate
        guard room != nil || participantDelegate != nil || localDelegate != nil else { return }
        options.delegateQueue.async {
            if let room, let delegate { event.deliver(to: delegate, room: room) }
            if let participantDelegate { event.deliver(to: participantDelegate) }
            if let localDelegate, let local { event.deliver(to: localDelegate, participant: local) }
        }
    }

    // MARK: Ending

    func failToConnect(_ error: VideoError) {
        guard !isFinished else { return }
        finish(error: error, event: .failedToConnect(error))
    }

    /// Stops everything; `event` is the last one the app hears.
    func finish(error: VideoError?, event: RoomEvent) {
        guard !isFinished else { return }
        logger.info("room ended: \(error.map { "\($0)" } ?? "left")")
        serverEnded = true
        setState(.disconnected)
        connectTimeout?.cancel()
        pinger?.cancel()
        pinger = nil
        channel?.close()
        channel = nil
        isJoined = false
        stopMedia()
        options.notificationCenter.remove(self)
        for participant in shared.withLock({ $0.remoteParticipants }) {
            participant.fields.withLock { $0.state = .disconnected }
        }
        emit(event)
        streams.finish()
    }

    func nextRequestID(_ prefix: String) -> String {
        requestCounter += 1
        return "\(prefix)\(requestCounter)"
    }
}
