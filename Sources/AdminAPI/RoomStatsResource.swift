import Foundation
import MediaIO
import Rooms
import SFU

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
        var media: ParticipantMediaStatistics?
    }

    var room: RoomResource
    var participants: [Participant]
    /// Every publication in the room, for names and enabled states.
    var publications: [TrackSID: PublishedTrackRecord]
    var generated: Date

    func json(_ links: ResourceLinks) -> [String: Any] {
        [
            "room_sid": room.sid,
            "account_sid": links.accountSID,
            "unique_name": room.uniqueName,
            "status": room.status,
            "date_generated": TwilioDate.string(generated),
            "url": links.room(room.sid) + "/Stats",
            "participants": participants.map(participantJSON),
        ]
    }

    private func participantJSON(_ participant: Participant) -> [String: Any] {
        let media = participant.media
        return [
            "participant_sid": participant.record.sid.rawValue,
            "identity": participant.record.identity,
            "status": participant.record.status.rawValue,
            "network_quality": (media?.networkQuality).flatMap { $0.level == nil ? nil : Self.qualityJSON($0) }.orNull,
            "round_trip_time_ms": Self.milliseconds(media?.roundTripTime),
            "published_tracks": (media?.published ?? []).map(publishedJSON),
            "subscribed_tracks": (media?.subscribed ?? []).map(subscribedJSON),
        ]
    }

    private static func qualityJSON(_ quality: ParticipantQuality) -> [String: Any] {
        [
            "level": quality.level ?? 0,
            "warnings": quality.warnings.map(\.rawValue),
            "mos": quality.mos.map { rounded($0, places: 2) }.orNull,
            "packet_loss": quality.lossFraction.map { rounded($0, places: 4) }.orNull,
            "jitter_ms": milliseconds(quality.jitter),
            "round_trip_time_ms": milliseconds(quality.roundTripTime),
        ]
    }

    private func publishedJSON(_ track: PublishedTrackStatistics) -> [String: Any] {
        let stats = track.receiver.stats
        let publication = publications[track.track]
        return [
            "track_sid": track.track.rawValue,
            "name": (publication?.name).orNull,
            "kind": Self.kind(track.receiver.kind),
            "enabled": track.receiver.isForwarding,
            "ssrc": track.receiver.ssrc.map { Int($0.rawValue) }.orNull,
            "packets_received": Int(clamping: stats.packets),
            "bytes_received": Int(clamping: stats.bytes),
            "bitrate_bps": track.receiver.rate.map { Int($0.bitsPerSecond.rounded()) }.orNull,
            "packets_lost": Int(stats.lost),
            "fraction_lost": Self.rounded(Double(stats.fractionLost) / 256, places: 4),
            "jitter_ms": Self.milliseconds(stats.jitterSeconds),
            "nacks_sent": Int(clamping: stats.nacksSent),
            "plis_sent": Int(clamping: stats.plisSent),
            "keyframes_received": Int(clamping: stats.keyframes),
        ]
    }

    private func subscribedJSON(_ track: SubscribedTrackStatistics) -> [String: Any] {
        let snapshot = track.downTrack
        let stats = snapshot.stats
        let publication = publications[track.track]
        return [
            "track_sid": track.track.rawValue,
            "publisher_sid": (track.publisher?.rawValue).orNull,
            "name": (publication?.name).orNull,
            "kind": Self.kind(snapshot.kind),
            "ssrc": Int(snapshot.ssrc.rawValue),
            "packets_sent": Int(clamping: stats.packets),
            "bytes_sent": Int(clamping: stats.bytes),
            "bitrate_bps": snapshot.rate.map { Int($0.bitsPerSecond.rounded()) }.orNull,
            "packets_lost": (snapshot.hasReport ? Int(stats.lost) : nil).orNull,
            "fraction_lost": (snapshot.hasReport ? Self.rounded(Double(stats.fractionLost) / 256, places: 4) : nil).orNull,
            "jitter_ms": Self.milliseconds(snapshot.hasReport ? stats.jitterSeconds : nil),
            "round_trip_time_ms": Self.milliseconds(stats.roundTripTime),
            "nacks_received": Int(clamping: stats.nacks),
            "retransmissions": Int(clamping: stats.retransmissions),
            "plis_received": Int(clamping: stats.plisReceived),
            "firs_received": Int(clamping: stats.firsReceived),
        ]
    }

    private static func kind(_ kind: SFU.MediaKind) -> String { kind == .audio ? "audio" : "video" }

    /// Seconds as milliseconds with 0.01 ms precision, or null.
    private static func milliseconds(_ seconds: Double?) -> Any {
        seconds.map { rounded($0 * 1000, places: 2) }.orNull
    }

    /// JSON numbers without binary noise (0.1 + 0.2 prints as 0.30000000000000004).
    private static func rounded(_ value: Double, places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (value * scale).rounded() / scale
    }
}
