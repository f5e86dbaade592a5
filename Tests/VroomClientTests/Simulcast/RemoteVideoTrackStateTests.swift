import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import VroomClient

/// A room's `RoomCore` driven by server messages alone (no socket): the
/// switch-off state of `RemoteVideoTrack`, its events and delegate calls,
/// and `publisherLayers` reaching the local camera's encoders.
@Suite struct RemoteVideoTrackStateTests {
    final class Calls: RemoteParticipantDelegate, @unchecked Sendable {
        // @unchecked: written on the delegate queue only, read after a sync on it.
        var log: [String] = []
        func didSwitchOffVideoTrack(participant: RemoteParticipant, track: RemoteVideoTrack, reason: TrackSwitchOffReason?) {
            log.append("off \(participant.identity) \(track.name) \(reason?.rawValue ?? "-")")
        }
        func didSwitchOnVideoTrack(participant: RemoteParticipant, track: RemoteVideoTrack) {
            log.append("on \(participant.identity) \(track.name)")
        }
    }

    /// A joined core with bob, who publishes "camera" (MTcam) and "mic".
    struct Joined {
        let group: MultiThreadedEventLoopGroup
        let core: RoomCore
        let queue: DispatchQueue
        let events: AsyncStream<RoomEvent>.Iterator

        func handle(_ signal: ServerSignal) async throws {
            let core = core
            try await core.eventLoop.submit { core.handle(signal) }.get()
        }

        func close() async throws {
            let core = core
            try await core.eventLoop.submit { core.finish(error: nil, event: .disconnected(nil)) }.get()
            try await group.shutdownGracefully()
        }
    }

    func joined(videoTracks: [LocalVideoTrack] = [], simulcast: Bool = false) async throws -> Joined {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var options = ConnectOptions(token: "unused", roomName: "room")
        let queue = DispatchQueue(label: "test.delegate")
        options.delegateQueue = queue
        options.videoTracks = videoTracks
        if simulcast { options.preferredVideoCodecs = [.vp8(simulcast: true)] }
        let core = RoomCore(url: URL(string: "http://127.0.0.1:9")!, options: options, eventLoop: group.next())
        let events = core.streams.makeStream().makeAsyncIterator()
        let joined = Joined(group: group, core: core, queue: queue, events: events)
        try await joined.handle(
            .joined(
                .init(
                    id: nil, roomSid: "RMx", roomName: "room", participantSid: "PAme", identity: "alice",
                    participants: [
                        .init(
                            sid: "PAbob", identity: "bob", state: "connected",
                            tracks: [
                                .init(sid: "MTcam", name: "camera", kind: .video, enabled: true),
                                .init(sid: "MTmic", name: "mic", kind: .audio, enabled: true),
                            ])
                    ], sessionToken: "tok", reconnectWindowSeconds: 30, resumed: false)))
        return joined
    }

    @Test func switchOffAndOnFollowTheServersEvents() async throws {
        let room = try await joined()
        var events = room.events
        let bob = try #require(room.core.shared.withLock { $0.remoteParticipants.first })
        let calls = Calls()
        bob.delegate = calls
        let publication = try #require(bob.publication(named: "camera"))
        #expect(publication.remoteVideoTrack == nil)  // not subscribed yet
        #expect(bob.publication(named: "mic")?.videoTrack == nil)
        publication.state.withLock { $0.subscribed = true }
        let track = try #require(publication.remoteVideoTrack)
        #expect(!track.isSwitchedOff && track.switchOffReason == nil)

        try await room.handle(.trackSwitchedOff(trackSid: "MTcam", reason: "network-congestion"))
        #expect(track.isSwitchedOff && track.switchOffReason == .networkCongestion)
        // The same event again changes nothing and is not reported twice.
        try await room.handle(.trackSwitchedOff(trackSid: "MTcam", reason: "network-congestion"))
        // A new reason while off is reported.
        try await room.handle(.trackSwitchedOff(trackSid: "MTcam", reason: "max-bandwidth-reached"))
        #expect(track.switchOffReason == .maxBandwidthReached)
        try await room.handle(.trackSwitchedOn(trackSid: "MTcam"))
        #expect(!track.isSwitchedOff && track.switchOffReason == nil)
        try await room.handle(.trackSwitchedOn(trackSid: "MTcam"))
        // An unknown reason: off, with no reason. Unknown tracks and audio: ignored.
        try await room.handle(.trackSwitchedOff(trackSid: "MTcam", reason: "solar-flare"))
        #expect(track.isSwitchedOff && track.switchOffReason == nil)
        try await room.handle(.trackSwitchedOff(trackSid: "MTnone", reason: "network-congestion"))
        try await room.handle(.trackSwitchedOff(trackSid: "MTmic", reason: "network-congestion"))

        var seen: [String] = []
        while seen.count < 4, let event = await events.next() {
            switch event {
            case .trackSwitchedOff(let p, let t, let reason): seen.append("off \(p.identity) \(t.sid) \(reason?.rawValue ?? "-")")
            case .trackSwitchedOn(let p, let t): seen.append("on \(p.identity) \(t.sid)")
            default: break
            }
        }
        #expect(seen == [
            "off bob MTcam network-congestion", "off bob MTcam max-bandwidth-reached", "on bob MTcam", "off bob MTcam -",
        ])
        room.queue.sync {}  // the delegate calls queued before this one have run
        #expect(calls.log == [
            "off bob camera network-congestion", "off bob camera max-bandwidth-reached", "on bob camera", "off bob camera -",
        ])
        try await room.close()
    }

    /// Without a signaling connection the track's requests go nowhere but
    /// its own wishes are kept.
    @Test func prioritiesAndRenderDimensionsAreKept() async throws {
        let room = try await joined()
        let bob = try #require(room.core.shared.withLock { $0.remoteParticipants.first })
        let track = try #require(bob.publication(named: "camera")?.videoTrack)
        #expect(track.priority == nil && track.renderDimensions == nil)
        track.priority = .high
        track.setContentPreferences(renderDimensions: VideoDimensions(width: 320, height: 180))
        #expect(track.priority == .high && track.renderDimensions == VideoDimensions(width: 320, height: 180))
        track.priority = nil
        #expect(track.priority == nil)
        try await room.close()
    }

    @Test func publisherLayersReachTheCamerasEncoders() async throws {
        let camera = LocalVideoTrack(name: "camera", source: CameraSource(options: CameraSourceOptions(width: 640, height: 480)))
        let room = try await joined(videoTracks: [camera], simulcast: true)
        let core = room.core
        let running = try await core.eventLoop.submit { () -> [Bool] in
            let (audio, video) = core.currentLocalTracks
            core.prepareSenders(audio: audio, video: video)
            core.shared.withLock { $0.localParticipant }?.fields.withLock {
                $0.publications["camera"] = LocalTrackPublication(trackSid: "MTmine", trackName: "camera", kind: .video)
            }
            core.handle(.publisherLayers(trackSid: "MTmine", active: ["q"]))
            core.handle(.publisherLayers(trackSid: "MTother", active: []))  // not ours: ignored
            return core.videoSenders["camera"]?.runningLayers ?? []
        }.get()
        #expect(running == [true, false, false])
        let back = try await core.eventLoop.submit { () -> [Bool] in
            core.handle(.publisherLayers(trackSid: "MTmine", active: ["q", "h", "f"]))
            return core.videoSenders["camera"]?.runningLayers ?? []
        }.get()
        #expect(back == [true, true, true])
        try await room.close()
    }
}
