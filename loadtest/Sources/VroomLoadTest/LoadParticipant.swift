import Dispatch
import Foundation
import LoadTestCore
import NIOCore
import VroomClient

/// One simulated participant. Every call into VroomClient is in this file:
/// connecting with the plan's tracks, watching the room's events, reading
/// statistics and leaving.
actor LoadParticipant {
    let plan: LoadPlan.Participant
    private var room: Room?
    private var joinMilliseconds: Double?
    private var failure: String?
    private var disconnectCode: String?
    private var leaving = false
    private var joinWaiter: CheckedContinuation<Void, Never>?
    private var eventsTask: Task<Void, Never>?
    private var streamEnded = false
    /// The clock the render requests and decoded sizes are read against.
    private let epoch = ContinuousClock.now
    /// `--render`: the size asked now, and what was asked, when.
    private var renderSize: VideoResolution?
    private var renderRequests: [ParticipantSnapshot.RenderRequest] = []
    /// Remote video tracks subscribed so far (render sizes go to each).
    private var videoTracks: [RemoteVideoTrack] = []
    /// `trackSwitchedOff` events so far.
    private var switchedOffEvents = 0

    /// Delegate callbacks are not used, but the SDK needs a queue that
    /// runs: `.main` may not be serviced while the async main awaits.
    private static let delegateQueue = DispatchQueue(label: "vroom-loadtest.delegate")

    init(plan: LoadPlan.Participant) {
        self.plan = plan
        renderSize = plan.renderSize
    }

    var isConnected: Bool { joinMilliseconds != nil && disconnectCode == nil && !leaving }

    /// The join's outcome so far, and whether the participant dropped since.
    var record: JoinRecord {
        JoinRecord(
            identity: plan.identity, roomName: plan.roomName, role: plan.role, joinMilliseconds: joinMilliseconds,
            failure: failure, disconnect: disconnectCode)
    }

    /// Connects and returns once the room says connected or failed, or
    /// `timeout` passed (then the join counts as failed with "timeout").
    /// `mediaServer` (IPV4:PORT): send media there instead of the server's
    /// candidate (a `--downlink-kbps` relay).
    func join(
        url: URL, token: String, configuration c: LoadTestConfiguration, group: any EventLoopGroup, timeout: Double,
        mediaServer: String? = nil
    ) async -> JoinRecord {
        var options = ConnectOptions(token: token, roomName: plan.roomName)
        options.mediaServerAddressOverride = mediaServer
        if let host = c.mediaBindHost { options.mediaBindHost = host }
        options.mediaTransport = MediaTransportPolicy(rawValue: c.mediaTransport) ?? .automatic
        options.eventLoopGroup = group
        options.delegateQueue = Self.delegateQueue
        options.decodesRemoteVideo = plan.decodesVideo
        // Only the decoding sample decodes audio too: 100 Opus decoders at
        // 50 frames/s each would be CPU the server needs.
        options.decodesRemoteAudio = plan.decodesVideo
        options.connectTimeout = .milliseconds(Int64(timeout * 1000))
        if c.simulcast { options.preferredVideoCodecs = [.vp8(simulcast: true)] }
        if plan.renderSize != nil {
            // This client says what it renders (Twilio's manual content preferences).
            options.bandwidthProfile = BandwidthProfileOptions(video: VideoBandwidthProfileOptions(contentPreferencesMode: .manual))
        }
        if plan.role == .publisher {
            options.audioTracks = [LocalAudioTrack(name: "microphone", options: AudioTrackOptions(toneFrequency: plan.toneFrequency))]
            if plan.publishesVideo {
                let camera = CameraSource(options: CameraSourceOptions(
                    width: c.videoResolution.width, height: c.videoResolution.height,
                    frameRate: c.videoFrameRate, bitrate: c.videoBitrate.bitsPerSecond))
                options.videoTracks = [LocalVideoTrack(name: "camera", source: camera)]
            }
        }
        let started = ContinuousClock.now
        let room = Room.connect(to: url, options: options)
        self.room = room
        // Taken at once: the first event needs a TCP connect and a reply, so none is missed.
        let events = room.events
        eventsTask = Task.detached { [weak self] in
            for await event in events {
                let at = ContinuousClock.now
                await self?.handle(event, elapsed: at - started)
            }
            await self?.eventsEnded()
        }
        let watchdog = Task.detached { [weak self] in
            // A little past the SDK's own connect timeout, which fails with 53000.
            try? await Task.sleep(for: .milliseconds(Int64(timeout * 1000) + 2_000))
            if !Task.isCancelled { await self?.resolveJoin(failure: "timeout") }
        }
        if joinMilliseconds == nil && failure == nil {
            await withCheckedContinuation { joinWaiter = $0 }
        }
        watchdog.cancel()
        return record
    }

    private func handle(_ event: RoomEvent, elapsed: Duration) {
        switch event {
        case .connected:
            if joinMilliseconds == nil && failure == nil {
                joinMilliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            }
            resumeWaiter()
        case .failedToConnect(let error):
            resolveJoin(failure: String(error.code))
        case .trackSubscribed(_, let publication):
            guard let track = publication.remoteVideoTrack, !videoTracks.contains(where: { $0 === track }) else { return }
            videoTracks.append(track)
            if let renderSize { ask(renderSize, of: track) }
        case .trackSwitchedOff:
            switchedOffEvents += 1
        case .disconnected(let error):
            if joinMilliseconds == nil {
                resolveJoin(failure: error.map { String($0.code) } ?? "disconnected")
            } else if !leaving && disconnectCode == nil {
                disconnectCode = error.map { String($0.code) } ?? "none"
            }
        default:
            break
        }
    }

    private func ask(_ size: VideoResolution, of track: RemoteVideoTrack) {
        track.setContentPreferences(renderDimensions: VideoDimensions(width: size.width, height: size.height))
        renderRequests.append(.init(trackSid: track.sid, size: size, seconds: seconds(since: epoch, ContinuousClock.now)))
    }

    /// `--render-change-after`: every subscribed video track to the plan's second size.
    func changeRenderSize() {
        guard let changed = plan.changedRenderSize, !leaving else { return }
        renderSize = changed
        for track in videoTracks { ask(changed, of: track) }
    }

    private func seconds(since start: ContinuousClock.Instant, _ instant: ContinuousClock.Instant) -> Double {
        let d = instant - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    private func resolveJoin(failure reason: String) {
        guard joinMilliseconds == nil, failure == nil else { return }
        failure = reason
        resumeWaiter()
        // A timed-out join must not go on connecting in the background.
        room?.disconnect()
    }

    private func resumeWaiter() {
        joinWaiter?.resume()
        joinWaiter = nil
    }

    private func eventsEnded() {
        streamEnded = true
        if joinMilliseconds == nil { resolveJoin(failure: "disconnected") }
    }

    /// Counters now; nil unless connected.
    func snapshot() async -> ParticipantSnapshot? {
        guard let room, joinMilliseconds != nil, !leaving else { return nil }
        let statistics = await room.statistics()
        return ParticipantSnapshot(
            identity: plan.identity, roomName: plan.roomName, role: plan.role, decodesVideo: plan.decodesVideo,
            sent: statistics.localTracks.map {
                ParticipantSnapshot.SentTrack(
                    trackSid: $0.trackSid, name: $0.name, kind: $0.kind.rawValue, packetsSent: $0.packetsSent,
                    bytesSent: $0.bytesSent, framesSent: $0.framesSent, retransmissionsSent: $0.retransmissionsSent,
                    keyframeRequestsReceived: $0.keyframeRequestsReceived)
            },
            received: statistics.remoteTracks.map {
                ParticipantSnapshot.ReceivedTrack(
                    trackSid: $0.trackSid, kind: $0.kind.rawValue, packetsReceived: $0.packetsReceived,
                    bytesReceived: $0.bytesReceived, packetsLost: $0.packetsLost, framesReceived: $0.framesReceived,
                    framesDecoded: $0.framesDecoded, frameNumbersRead: $0.frameNumbersRead,
                    firstFrameNumber: $0.firstFrameNumber, lastFrameNumber: $0.lastFrameNumber,
                    frameNumberRanges: $0.frameNumberRanges,
                    latencyMilliseconds: $0.latencyMilliseconds, nacksSent: $0.nacksSent,
                    keyframeRequestsSent: $0.keyframeRequestsSent,
                    decodedSizes: $0.decodedSizeChanges.map { change in
                        ParticipantSnapshot.DecodedSize(
                            size: VideoResolution(width: change.dimensions.width, height: change.dimensions.height),
                            seconds: seconds(since: epoch, change.time))
                    },
                    freezeCount: $0.freezeCount)
            },
            renderRequests: renderRequests, switchedOffEvents: switchedOffEvents, downlinkKbps: plan.downlinkKbps,
            node: room.signalingURL.flatMap(NodeAddress.of))
    }

    /// Leaves the room; returns once the room reports it is gone (or after 3 s).
    func leave() async {
        leaving = true
        room?.disconnect()
        for _ in 0..<60 where !streamEnded && room?.state != .disconnected {
            try? await Task.sleep(for: .milliseconds(50))
        }
        eventsTask?.cancel()
    }
}
