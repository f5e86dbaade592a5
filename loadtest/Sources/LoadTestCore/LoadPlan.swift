import Codecs

/// Who joins which room, in what order, doing what: decided up front from
/// the configuration and seed, so a run can be repeated and tested.
public struct LoadPlan: Sendable, Equatable {
    public struct Room: Sendable, Equatable, Codable {
        public var index: Int
        /// REST `UniqueName`.
        public var name: String
        /// REST `MaxParticipants`: exactly the room's publishers + subscribers.
        public var maxParticipants: Int
    }

    public enum Role: String, Sendable, Equatable, Codable {
        case publisher, subscriber
    }

    public struct Participant: Sendable, Equatable {
        public var roomIndex: Int
        public var roomName: String
        /// Unique in the run: `p0-r1` is publisher 0 of room 1.
        public var identity: String
        public var role: Role
        /// Decodes received video (and so measures frames and latency);
        /// the rest only count and check packets.
        public var decodesVideo: Bool
        /// Publishers: send video as well as audio.
        public var publishesVideo: Bool
        /// Publishers: the tone that identifies this sender (Hz).
        public var toneFrequency: Double
        /// Subscribers with `--render`: the size asked for every video track.
        public var renderSize: VideoResolution? = nil
        /// With `--render-change-after`: the size it changes to.
        public var changedRenderSize: VideoResolution? = nil
        /// Subscribers with `--downlink-kbps`: its group's rate, kbit/s (0 = not shaped).
        public var downlinkKbps: Int? = nil
    }

    public var rooms: [Room]
    /// In join order: every room's publishers first (round robin over rooms,
    /// so subscribers find media when they arrive), then all subscribers in
    /// an order shuffled by the seed.
    public var joins: [Participant]

    /// `runID` keeps room names of two runs apart (a unique name may not be
    /// reused while its room is in progress: 53113).
    public init(configuration c: LoadTestConfiguration, runID: String) {
        rooms = (0..<c.rooms).map {
            Room(index: c.roomOffset + $0, name: "\(c.roomPrefix)-\(runID)-\(c.roomOffset + $0)", maxParticipants: c.participantsPerRoom)
        }
        var generator = SeededGenerator(seed: c.seed)
        var publishers: [Participant] = []
        for p in 0..<c.publishers {
            for room in rooms {
                // 300...2000 Hz in 10 Hz steps: distinct tones a receiver can tell apart by FFT.
                let tone = Double(300 + 10 * Int.random(in: 0...170, using: &generator))
                publishers.append(Participant(
                    roomIndex: room.index, roomName: room.name, identity: "p\(p)-r\(room.index)", role: .publisher,
                    decodesVideo: false, publishesVideo: !c.audioOnly, toneFrequency: tone))
            }
        }
        var subscribers: [Participant] = []
        for room in rooms {
            for s in 0..<c.subscribers {
                let render = c.render?.size(forSubscriber: s, of: c.subscribers)
                subscribers.append(Participant(
                    roomIndex: room.index, roomName: room.name, identity: "s\(s)-r\(room.index)", role: .subscriber,
                    decodesVideo: s < c.decodingSubscribersPerRoom, publishesVideo: false, toneFrequency: 0,
                    renderSize: render,
                    changedRenderSize: c.renderChangeAfter == nil ? nil : render.flatMap { c.render?.changed(from: $0) },
                    downlinkKbps: c.downlinkKbps?.kilobitsPerSecond(forSubscriber: s)))
            }
        }
        subscribers.shuffle(using: &generator)
        joins = publishers + subscribers
    }

    /// When (seconds after the ramp starts) join `index` begins: `ramp` per second.
    public static func joinOffset(index: Int, ramp: Double) -> Double {
        Double(index) / ramp
    }
}
