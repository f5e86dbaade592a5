import Packets
import Testing
@testable import SFU

/// A DownTrack holds its session strongly (no runtime call per copy to
/// read it), and the session holds its DownTracks: the router must break
/// that cycle wherever it drops either, or every subscriber leaks.
@Suite struct RouterLifetimeTests {
    /// Weak references to Alice's session and DownTracks, taken while the
    /// room forwards to them.
    private struct Watched {
        weak var session: SubscriberSession?
        var downTracks: [Weak] = []
        var gone: Bool { session == nil && downTracks.allSatisfy { $0.object == nil } }

        struct Weak { weak var object: DownTrack? }

        init(_ router: Router) throws {
            let session = try #require(router.subscribers[Room.alice])
            self.session = session
            downTracks = session.downTracks.map { Weak(object: $0) }
            #expect(downTracks.count == 2)
        }
    }

    /// Alice's session and DownTracks after the room has forwarded to her.
    private func forwardingRoom() throws -> (Room, Watched) {
        var room = try Room()
        room.frame(1, keyframe: true)
        #expect(try room.sink.drain().rtp(to: Room.alice).isEmpty == false)
        return (room, try Watched(room.router))
    }

    @Test func aRemovedSubscriberIsFreed() throws {
        let (room, watched) = try forwardingRoom()
        room.router.removeSubscriber(transport: Room.alice)
        #expect(watched.gone)
    }

    @Test func aRemovedTrackFreesItsDownTracks() throws {
        let (room, watched) = try forwardingRoom()
        room.router.removeReceiver(track: Room.video)
        room.router.removeDownTrack(track: Room.audio, subscriber: Room.alice)
        #expect(watched.downTracks.allSatisfy { $0.object == nil })
        #expect(watched.session != nil)
    }

    @Test func aDroppedRouterFreesEverySession() throws {
        var watched: Watched?
        do {
            let (_, alice) = try forwardingRoom()
            watched = alice
        }
        #expect(watched?.gone == true)
    }
}
