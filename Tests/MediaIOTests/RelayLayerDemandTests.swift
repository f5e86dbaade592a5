import Logging
import Packets
import SFU
import Synchronization
import Testing

@testable import MediaIO

/// A simulcast track of a room spread over workers: its publisher hears the
/// union of the layers every worker's subscribers need, from the room's
/// home, and only when that union changes.
@Suite struct RelayLayerDemandTests {
    @Test func thePublisherHearsTheUnionOfEveryWorkersDemand() throws {
        let heard = Mutex<[[String]]>([])
        let rooms = MediaWorkerRooms(events: { event in
            if case .publisherLayers(_, _, let active) = event { heard.withLock { $0.append(active) } }
        }, logger: Logger(label: "test.relay-layers"))
        let room = RoomHandle(rawValue: 4)
        let track = TrackID(9)
        let router = rooms.router(for: room)
        try router.addPublisher(transport: TransportID(1), transportCCExtensionID: nil, midExtensionID: 4, ridExtensionID: 10)
        try router.addReceiver(
            track: track, publisher: TransportID(1), kind: .video, mid: "0", payloadType: 96, clockRate: 90_000,
            layers: ["q", "h", "f"].map { SimulcastLayer(rid: $0) })
        // The home's own subscribers need the lowest layer; worker 1's the full one.
        rooms.demandLayers(room: room, track: track, worker: 0, active: ["q"])
        rooms.demandLayers(room: room, track: track, worker: 1, active: ["f", "q"])
        rooms.demandLayers(room: room, track: track, worker: 1, active: ["q", "f"])
        // Worker 2 wants the middle one: lowest first, in the track's order.
        rooms.demandLayers(room: room, track: track, worker: 2, active: ["h"])
        // Worker 1 holds none of the room's subscribers any more.
        rooms.removeRelayTarget(room: room, worker: 1)
        #expect(heard.withLock { $0 } == [["q"], ["q", "f"], ["q", "h", "f"], ["q", "h"]])
    }
}
