import Foundation
import Node
import Rooms

/// `GET /v1/Rooms/{RoomSid}/Stats` (PROTOCOL.md section 6): a room's live
/// media per participant and track, in the snake_case style of the other
/// resources. Not a Twilio resource (Twilio has no such route); the shape
/// is Vroom's own and is in openapi.yaml as `RoomStats`.
///
/// Per participant: network quality (level, warnings and the sample's
/// figures; null before the first sample) and the subscriber connection's
/// RTT. Per published track, what the server receives; per subscribed
/// track, what it sends and what the subscriber's receiver reports say.
/// Rates are over about the last second (`RateMeter`); loss and jitter of
/// a subscribed track are null until the subscriber's first report.
struct RoomStatsResource: Sendable {
    struct Participant: Sendable {
        var record: ParticipantRecord
        var media: ParticipantMediaFigures?
    }

    var room: RoomResource
    var participants: [Participant]
    /// Every publication in the room, for names and enabled states.
    var publications: [TrackSID: PublishedTrackRecord]
    var generated: Date

    /// The JSON object.
    struct JSON: Encodable {
        var roomSID: String
        var accountSID: String
        var uniqueName: String
        var status: String
        var dateGenerated: Date
        var url: String
        var participants: [ParticipantJSON]

        enum CodingKeys: String, CodingKey {
            case roomSID = "room_sid", accountSID = "account_sid", uniqueName = "unique_name", status
            case dateGenerated = "date_generated", url, participants
        }
    }

    struct ParticipantJSON: Encodable {
        var participantSID: String
        var identity: String
        var status: String
        @JSONNullable var networkQuality: QualityJSON?
        @JSONNullable var roundTripTimeMs: Double?
        /// The server's downlink estimate for the subscriber connection, in
        /// bits per second (PROTOCOL.md 7); null before its first feedback.
        @JSONNullable var availableOutgoingBitrate: Int?
        var publishedTracks: [PublishedJSON]
        var subscribedTracks: [SubscribedJSON]

        enum CodingKeys: String, CodingKey {
            case participantSID = "participant_sid", identity, status, networkQuality = "network_quality"
            case roundTripTimeMs = "round_trip_time_ms", availableOutgoingBitrate = "available_outgoing_bitrate"
            case publishedTracks = "published_tracks", subscribedTracks = "subscribed_tracks"
        }
    }

    struct QualityJSON: Encodable, Sendable {
        var level: Int
        var warnings: [String]
        @JSONNullable var mos: Double?
        @JSONNullable var packetLoss: Double?
        @JSONNullable var jitterMs: Double?
        @JSONNullable var roundTripTimeMs: Double?

        enum CodingKeys: String, CodingKey {
            case level, warnings, mos, packetLoss = "packet_loss", jitterMs = "jitter_ms"
            case roundTripTimeMs = "round_trip_time_ms"
        }
    }

    struct PublishedJSON: Encodable {
        var trackSID: String
        @JSONNullable var name: String?
        var kind: String
        var enabled: Bool
        @JSONNullable var ssrc: Int?
        var packetsReceived: Int
        var bytesReceived: Int
        @JSONNullable var bitrateBps: Int?
        var packetsLost: Int
        var fractionLost: Double
        @JSONNullable var jitterMs: Double?
        var nacksSent: Int
        var plisSent: Int
        var keyframesReceived: Int

        enum CodingKeys: String, CodingKey {
            case trackSID = "track_sid", name, kind, enabled, ssrc, packetsReceived = "packets_received"
            case bytesReceived = "bytes_received", bitrateBps = "bitrate_bps", packetsLost = "packets_lost"
            case fractionLost = "fraction_lost", jitterMs = "jitter_ms", nacksSent = "nacks_sent", plisSent = "plis_sent"
            case keyframesReceived = "keyframes_received"
        }
    }

    struct SubscribedJSON: Encodable {
        var trackSID: String
        @JSONNullable var publisherSID: String?
        @JSONNullable var name: String?
        var kind: String
        var ssrc: Int
        var packetsSent: Int
        var bytesSent: Int
        @JSONNullable var bitrateBps: Int?
        @JSONNullable var packetsLost: Int?
        @JSONNullable var fractionLost: Double?
        @JSONNullable var jitterMs: Double?
        @JSONNullable var roundTripTimeMs: Double?
        var nacksReceived: Int
        var retransmissions: Int
        var plisReceived: Int
        var firsReceived: Int
        /// The layer forwarded now (PROTOCOL.md 7); null while switched off
        /// or before the first packet.
        @JSONNullable var layer: LayerJSON?
        var switchedOff: Bool
        @JSONNullable var switchOffReason: String?

        enum CodingKeys: String, CodingKey {
            case trackSID = "track_sid", publisherSID = "publisher_sid", name, kind, ssrc, packetsSent = "packets_sent"
            case bytesSent = "bytes_sent", bitrateBps = "bitrate_bps", packetsLost = "packets_lost"
            case fractionLost = "fraction_lost", jitterMs = "jitter_ms", roundTripTimeMs = "round_trip_time_ms"
            case nacksReceived = "nacks_received", retransmissions, plisReceived = "plis_received"
            case firsReceived = "firs_received", layer, switchedOff = "switched_off"
            case switchOffReason = "switch_off_reason"
        }
    }

    /// `{"rid":"h","spatial_layer":1,"temporal_layer":2}`: `rid` null for a
    /// track published without simulcast, `temporal_layer` null when the
    /// stream has no VP8 temporal layers.
    struct LayerJSON: Encodable {
        @JSONNullable var rid: String?
        var spatialLayer: Int
        @JSONNullable var temporalLayer: Int?

        enum CodingKeys: String, CodingKey {
            case rid, spatialLayer = "spatial_layer", temporalLayer = "temporal_layer"
        }
    }

    func json(_ links: ResourceLinks) -> JSON {
        JSON(
            roomSID: room.sid, accountSID: links.accountSID, uniqueName: room.uniqueName, status: room.status,
            dateGenerated: generated, url: links.room(room.sid) + "/Stats",
            participants: participants.map(participantJSON))
    }

    private func participantJSON(_ participant: Participant) -> ParticipantJSON {
        let media = participant.media
        return ParticipantJSON(
            participantSID: participant.record.sid.rawValue,
            identity: participant.record.identity,
            status: participant.record.status.rawValue,
            networkQuality: (media?.networkQuality).flatMap { $0.level == nil ? nil : Self.qualityJSON($0) },
            roundTripTimeMs: Self.milliseconds(media?.roundTripTime),
            availableOutgoingBitrate: (media?.availableOutgoingBitrate).map { Int(clamping: $0) },
            publishedTracks: (media?.published ?? []).map(publishedJSON),
            subscribedTracks: (media?.subscribed ?? []).map(subscribedJSON))
    }

    private static func qualityJSON(_ quality: QualityFigures) -> QualityJSON {
        QualityJSON(
            level: quality.level ?? 0,
            warnings: quality.warnings.map(\.rawValue),
            mos: quality.mos.map { rounded($0, places: 2) },
            packetLoss: quality.lossFraction.map { rounded($0, places: 4) },
            jitterMs: milliseconds(quality.jitter),
            roundTripTimeMs: milliseconds(quality.roundTripTime))
    }

    private func publishedJSON(_ track: PublishedTrackFigures) -> PublishedJSON {
        let stats = track.receiver.stats
        let publication = publications[track.track]
        return PublishedJSON(
            trackSID: track.track.rawValue,
            name: publication?.name,
            kind: track.receiver.kind.rawValue,
            enabled: track.receiver.isForwarding,
            ssrc: track.receiver.ssrc.map { Int($0.rawValue) },
            packetsReceived: Int(clamping: stats.packets),
            bytesReceived: Int(clamping: stats.bytes),
            bitrateBps: track.receiver.rate.map { Int($0.bitsPerSecond.rounded()) },
            packetsLost: Int(stats.lost),
            fractionLost: Self.rounded(Double(stats.fractionLost) / 256, places: 4),
            jitterMs: Self.milliseconds(stats.jitterSeconds),
            nacksSent: Int(clamping: stats.nacksSent),
            plisSent: Int(clamping: stats.plisSent),
            keyframesReceived: Int(clamping: stats.keyframes))
    }

    private func subscribedJSON(_ track: SubscribedTrackFigures) -> SubscribedJSON {
        let snapshot = track.downTrack
        let stats = snapshot.stats
        let publication = publications[track.track]
        return SubscribedJSON(
            trackSID: track.track.rawValue,
            publisherSID: track.publisher?.rawValue,
            name: publication?.name,
            kind: snapshot.kind.rawValue,
            ssrc: Int(snapshot.ssrc.rawValue),
            packetsSent: Int(clamping: stats.packets),
            bytesSent: Int(clamping: stats.bytes),
            bitrateBps: snapshot.rate.map { Int($0.bitsPerSecond.rounded()) },
            packetsLost: snapshot.hasReport ? Int(stats.lost) : nil,
            fractionLost: snapshot.hasReport ? Self.rounded(Double(stats.fractionLost) / 256, places: 4) : nil,
            jitterMs: Self.milliseconds(snapshot.hasReport ? stats.jitterSeconds : nil),
            roundTripTimeMs: Self.milliseconds(stats.roundTripTime),
            nacksReceived: Int(clamping: stats.nacks),
            retransmissions: Int(clamping: stats.retransmissions),
            plisReceived: Int(clamping: stats.plisReceived),
            firsReceived: Int(clamping: stats.firsReceived),
            layer: stats.layer.map { LayerJSON(rid: $0.rid, spatialLayer: $0.spatial, temporalLayer: $0.temporal) },
            switchedOff: stats.switchedOff, switchOffReason: stats.switchOffReason?.rawValue)
    }

    /// Seconds as milliseconds with 0.01 ms precision, or null.
    private static func milliseconds(_ seconds: Double?) -> Double? {
        seconds.map { rounded($0 * 1000, places: 2) }
    }

    /// JSON numbers without binary noise (0.1 + 0.2 prints as 0.30000000000000004).
    private static func rounded(_ value: Double, places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (value * scale).rounded() / scale
    }
}
