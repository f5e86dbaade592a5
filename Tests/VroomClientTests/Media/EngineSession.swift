import Foundation
import Logging
import MediaIO
import NIOCore
import NIOPosix
import Packets
import Node
import Rooms
import SDP
import Synchronization
import Testing
import VroomTesting
import WebRTC

@testable import VroomClient

/// Events kept for the test: appended on the thread that reports them (an
/// engine's event loop, a plane's worker), read from the test task.
final class EventLog<Event: Sendable>: Sendable {
    private let events = Mutex<[Event]>([])

    func append(_ event: Event) { events.withLock { $0.append(event) } }

    var all: [Event] { events.withLock { $0 } }
}

/// What an engine reported.
typealias EngineEventLog = EventLog<MediaEngineEvent>

/// What the media plane reported (switch-offs, layers, failures), for a
/// failing test's message.
typealias MediaEventLog = EventLog<MediaEvent>

extension EventLog where Event == MediaEngineEvent {
    var videoFrames: [RemoteVideoFrame] {
        all.compactMap { if case .remoteVideoFrame(_, let frame) = $0 { frame } else { nil } }
    }

    var audioFrames: [RemoteAudioFrame] {
        all.compactMap { if case .remoteAudioFrame(_, let frame) = $0 { frame } else { nil } }
    }

    /// The layer of each keyframe request, in order.
    var keyframeLayers: [Int] {
        all.compactMap { if case .keyframeRequested(_, let layer) = $0 { layer } else { nil } }
    }

    var keyframeRequests: Int {
        all.filter { if case .keyframeRequested = $0 { true } else { false } }.count
    }

    func isConnected(_ role: MediaConnectionRole) -> Bool {
        var connected = false
        for case .connectionStateChanged(let r, let state) in all where r == role { connected = state == .connected }
        return connected
    }
}

/// A real in-process `MediaPlane` on 127.0.0.1 and two `MediaEngine`s on
/// the two threads of a NIO `MultiThreadedEventLoopGroup` (as a load test
/// runs them): A publishes "mic" (audio) and "camera" (video), B
/// subscribes to both. The control side makes the calls Signaling would
/// (as `Tests/MediaIOTests/PlaneSession.swift` does), without signaling.
final class EngineSession: @unchecked Sendable {
    // @unchecked Sendable: the test task owns it; each engine is only used on its own loop.
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
    /// The media plane (handles) and its control face in SIDs, as `Node`
    /// uses it; another one after `moveToAnotherServer`.
    private(set) var mediaPlane: MediaPlane
    private(set) var plane: RoomMedia
    private let consentTimeout: Duration?
    let room: RoomSID
    let publisherSID: ParticipantSID
    let subscriberSID: ParticipantSID
    let audioTrack: TrackSID
    let videoTrack: TrackSID
    let a: MediaEngine
    let b: MediaEngine
    let aLog = EngineEventLog()
    let bLog = EngineEventLog()
    let planeLog = MediaEventLog()
    var relay: UDPImpairmentRelay?
    /// A's camera's simulcast RIDs (empty: one layer).
    var cameraRIDs: [String] = []

    /// `relayProfile`: B's subscriber and A's publisher traffic both go
    /// through one `UDPImpairmentRelay` with this downstream (server to
    /// client) profile and `upstream` for client to server.
    /// `consentTimeout`: on the server and the engines (checks every 300 ms then).
    init(
        seed: UInt64, downstream: ImpairmentProfile? = nil, upstream: ImpairmentProfile = .none,
        consentTimeout: Duration? = nil
    ) async throws {
        var generator = SeededGenerator(seed: seed)
        room = .random(using: &generator)
        publisherSID = .random(using: &generator)
        subscriberSID = .random(using: &generator)
        audioTrack = .random(using: &generator)
        videoTrack = .random(using: &generator)
        self.consentTimeout = consentTimeout
        mediaPlane = try Self.startPlane(consentTimeout: consentTimeout, log: planeLog)
        plane = RoomMedia(plane: mediaPlane)
        var configuration = MediaEngineConfiguration()
        if let consentTimeout {
            configuration.consentTimeout = consentTimeout
            configuration.consentCheckInterval = .milliseconds(300)
        }
        if let downstream {
            let relay = try UDPImpairmentRelay(
                .init(targetPort: plane.ports[0], upstream: upstream, downstream: downstream, seed: seed))
            relay.start()
            self.relay = relay
            configuration.serverAddressOverride = STUNAddress(ipv4: 127, 0, 0, 1, port: relay.port)
        }
        let (aLoop, bLoop) = (group.next(), group.next())  // round robin: one per thread
        let (aLog, bLog) = (aLog, bLog)
        a = try await aLoop.submit { [configuration] in
            try MediaEngine(eventLoop: aLoop, configuration: configuration, onEvent: aLog.append)
        }.get()
        b = try await bLoop.submit { [configuration] in
            try MediaEngine(eventLoop: bLoop, configuration: configuration, onEvent: bLog.append)
        }.get()
    }

    /// A media plane of its own, with its own DTLS certificate: what one
    /// server process (one node) has.
    private static func startPlane(consentTimeout: Duration?, log: MediaEventLog) throws -> MediaPlane {
        let plane = try MediaPlane(
            configuration: MediaConfiguration(
                bindAddress: "127.0.0.1", basePort: 0, workers: 1, announcedAddresses: ["127.0.0.1"],
                consentTimeoutSeconds: consentTimeout.map { Double($0.components.seconds) } ?? 30),
            logger: Logger(label: "test.media"), events: log.append)
        plane.start()
        return plane
    }

    /// The room moves to another node (PROTOCOL.md 8): this media plane
    /// stops, as a dead or drained node's does, and a new one (another
    /// certificate, other ports) negotiates A's publication and B's
    /// subscription afresh, as the new node does after the resumes. The
    /// engines are the same; they only see the new node's SDP. Not with
    /// a relay (it forwards to the old plane's port).
    func moveToAnotherServer() async throws {
        precondition(relay == nil, "the relay forwards to the old plane")
        await mediaPlane.stop()
        mediaPlane = try Self.startPlane(consentTimeout: consentTimeout, log: planeLog)
        plane = RoomMedia(plane: mediaPlane)
        try await publish()
        try await subscribe()
    }

    var audioSid: String { "\(audioTrack)" }
    var videoSid: String { "\(videoTrack)" }

    /// Runs `body` with the engine on its loop.
    func on<R: Sendable>(_ engine: MediaEngine, _ body: @escaping @Sendable (MediaEngine) throws -> R) async throws -> R {
        try await engine.eventLoop.submit { try body(engine) }.get()
    }

    /// A publishes mic + camera; returns when its publisher connection is up.
    func publish(iceRestart: Bool = false) async throws {
        let rids = cameraRIDs
        let offer = try await on(a) { engine in
            engine.setLocalTracks([
                LocalMediaTrack(name: "mic", kind: .audio, enabled: true),
                LocalMediaTrack(name: "camera", kind: .video, enabled: true, rids: rids),
            ])
            return engine.makePublishOffer(iceRestart: iceRestart)
        }
        let pending = try plane.answerPublish(
            participant: publisherSID, room: room, offer: offer.sdp,
            trackMIDs: offer.tracks.map(\.mid))
        let sids = ["mic": audioTrack, "camera": videoTrack]
        try await plane.applyPublish(
            participant: publisherSID, room: room, pending,
            tracks: offer.tracks.map { track in
                PublishedTrackAssignment(
                    mid: track.mid, sid: sids[track.name]!, name: track.name, kind: track.kind == .audio ? .audio : .video,
                    enabled: true, isNew: !iceRestart)
            })
        let answer = pending.sdp
        try await on(a) { try $0.applyPublishAnswer(answer) }
        let up = await waitUntil { self.aLog.isConnected(.publisher) }
        try #require(up, "A's publisher connection did not come up")
    }

    /// B gets an offer for A's two tracks, answers it; returns when connected.
    func subscribe() async throws {
        let offer = try #require(
            try plane.subscriberOffer(
                participant: subscriberSID, room: room,
                slots: [
                    SubscriberSlotRequest(mid: "0", kind: .audio, track: SubscribedTrackRef(sid: audioTrack, publisher: publisherSID)),
                    SubscriberSlotRequest(mid: "1", kind: .video, track: SubscribedTrackRef(sid: videoTrack, publisher: publisherSID)),
                ]))
        let tracks = [
            RemoteMediaTrack(mid: "0", trackSid: audioSid, participantSid: "\(publisherSID)", kind: .audio),
            RemoteMediaTrack(mid: "1", trackSid: videoSid, participantSid: "\(publisherSID)", kind: .video),
        ]
        let answer = try await on(b) { try $0.answerSubscribeOffer(offer, tracks: tracks) }
        try await plane.applySubscriberAnswer(participant: subscriberSID, sdp: answer)
        // These tests are about the media plumbing, not the allocator (its
        // own suites and the bwe scenarios are). With Twilio's default
        // `predicted`, a loaded machine can keep the start probes from
        // raising the 300 kbit/s start estimate, and the camera (about 600
        // kbit/s) is switched off a second after B's first feedback: CI
        // saw B get frames 1-29 of 60, then nothing, and its PLIs ignored.
        var profile = MediaAllocationProfile()
        profile.trackSwitchOffMode = .disabled
        plane.setAllocationProfile(participant: subscriberSID, room: room, profile)
        let up = await waitUntil { self.bLog.isConnected(.subscriber) }
        try #require(up, "B's subscriber connection did not come up")
    }

    static func connected(
        seed: UInt64, downstream: ImpairmentProfile? = nil, upstream: ImpairmentProfile = .none,
        consentTimeout: Duration? = nil, cameraRIDs: [String] = []
    ) async throws -> EngineSession {
        let session = try await EngineSession(
            seed: seed, downstream: downstream, upstream: upstream, consentTimeout: consentTimeout)
        session.cameraRIDs = cameraRIDs
        try await session.publish()
        try await session.subscribe()
        return session
    }

    /// Sends `count` video frames (30 fps; a keyframe first and whenever A
    /// was asked for one) and an audio frame every 20 ms, paced in real
    /// time; returns what was sent.
    /// `layer`: the camera's simulcast layer to send on (0: the only one).
    func sendMedia(frames count: Int, seed: UInt64, layer: Int = 0) async throws -> (video: [[UInt8]], audio: [[UInt8]]) {
        var generator = SeededGenerator(seed: seed)
        var video: [[UInt8]] = []
        var audio: [[UInt8]] = []
        var handledRequests = aLog.keyframeRequests
        let start = EngineClock.now()
        for index in 0..<count {
            let requests = aLog.keyframeRequests
            let keyframe = index == 0 || requests > handledRequests
            handledRequests = requests
            let size = Int.random(in: 200...5000, using: &generator)
            // RFC 6386 9.1: the frame tag's P bit (bit 0) is 0 for a keyframe.
            var frame = [keyframe ? UInt8(0x10) : 0x11] + (1..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            frame[1] = UInt8(truncatingIfNeeded: index)
            video.append(frame)
            let capture = start.adding(milliseconds: UInt64(index) * 33)
            let audioFrames = (0..<2).map { _ in
                [0x78] + (0..<Int.random(in: 60...120, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            }
            audio += audioFrames
            try await on(a) { [frame] engine in
                engine.sendVideoFrame(trackName: "camera", layer: layer, data: frame, isKeyframe: keyframe, captureTime: capture)
                for (k, opus) in audioFrames.enumerated() {
                    engine.sendAudioFrame(
                        trackName: "mic", data: opus, audioLevel: 30, captureTime: capture.adding(milliseconds: UInt64(k) * 20))
                }
            }
            try await Task.sleep(for: .milliseconds(33))
        }
        return (video, audio)
    }

    func stop() async {
        try? await on(a) { $0.close() }
        try? await on(b) { $0.close() }
        _ = relay?.stop()
        await mediaPlane.stop()
        try? await group.shutdownGracefully()
    }
}

/// Polls `condition` every 5 ms until true or `timeout`.
func waitUntil(timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
