/// What the load tester reads of `GET /v1/Rooms/{RoomSid}/Stats`
/// (PROTOCOL.md 6 and 7): per participant the server's downlink estimate,
/// per subscribed video track the layer forwarded and whether it is
/// switched off. Other fields are ignored.
public struct RoomStatsSample: Sendable, Equatable, Decodable {
    public var participants: [Participant]

    public struct Participant: Sendable, Equatable, Decodable {
        public var identity: String
        /// Bits per second; nil before the subscriber's first feedback.
        public var availableOutgoingBitrate: Double?
        public var subscribedTracks: [SubscribedTrack]

        enum CodingKeys: String, CodingKey {
            case identity, availableOutgoingBitrate = "available_outgoing_bitrate", subscribedTracks = "subscribed_tracks"
        }

        public init(identity: String, availableOutgoingBitrate: Double?, subscribedTracks: [SubscribedTrack] = []) {
            self.identity = identity
            self.availableOutgoingBitrate = availableOutgoingBitrate
            self.subscribedTracks = subscribedTracks
        }
    }

    public struct SubscribedTrack: Sendable, Equatable, Decodable {
        public var trackSID: String
        public var kind: String
        public var layer: Layer?
        public var switchedOff: Bool

        enum CodingKeys: String, CodingKey {
            case trackSID = "track_sid", kind, layer, switchedOff = "switched_off"
        }

        public init(trackSID: String, kind: String, layer: Layer?, switchedOff: Bool = false) {
            self.trackSID = trackSID
            self.kind = kind
            self.layer = layer
            self.switchedOff = switchedOff
        }
    }

    public struct Layer: Sendable, Equatable, Decodable, CustomStringConvertible {
        public var rid: String?
        public var spatialLayer: Int
        public var temporalLayer: Int?

        enum CodingKeys: String, CodingKey {
            case rid, spatialLayer = "spatial_layer", temporalLayer = "temporal_layer"
        }

        public init(rid: String?, spatialLayer: Int, temporalLayer: Int?) {
            self.rid = rid
            self.spatialLayer = spatialLayer
            self.temporalLayer = temporalLayer
        }

        /// "h/T2": the RID (or the spatial index without simulcast), then the temporal layer when there are any.
        public var description: String {
            (rid ?? "s\(spatialLayer)") + (temporalLayer.map { "/T\($0)" } ?? "")
        }
    }
}

/// One subscriber's `/Stats` figures sampled through the window.
public struct DownlinkSeries: Sendable, Equatable, Codable {
    /// The server's estimate at each sample where it had one, bit/s.
    public var estimates: [Double] = []
    /// The layer of its video tracks at each sample ("off" when switched off).
    public var layers: [String] = []

    public init(estimates: [Double] = [], layers: [String] = []) {
        self.estimates = estimates
        self.layers = layers
    }

    /// Adds one sample of the participant's row.
    public mutating func add(_ participant: RoomStatsSample.Participant) {
        if let estimate = participant.availableOutgoingBitrate { estimates.append(estimate) }
        let video = participant.subscribedTracks.filter { $0.kind == "video" }
        guard !video.isEmpty else { return }
        layers.append(video.map { $0.switchedOff ? "off" : $0.layer?.description ?? "-" }.joined(separator: "+"))
    }
}
