import Packets
import WebRTC

/// The RTP state of one local track on the publisher connection: its SSRC,
/// sequence numbers and timestamp offset (random, RFC 3550 section 5.1),
/// the VP8 packetizer, the send history NACKs are answered from, and the
/// counters its sender reports and statistics read.
struct LocalTrackSender {
    var track: LocalMediaTrack
    let mid: String
    let ssrc: SSRC
    /// The simulcast layer's RID (RFC 8852), nil for a one-layer track.
    let rid: String?
    var sequenceNumber: UInt16
    let timestampOffset: UInt32
    var packetizer: VP8Packetizer
    var history: SendHistory
    var statistics: MediaEngineStatistics.LocalTrack
    /// The last FIR sequence number seen (RFC 5104 4.3.1.2: a repeat is not a new request).
    var lastFIRSequence: UInt8?

    var clockRate: UInt32 { track.kind == .video ? 90000 : 48000 }

    init<G: RandomNumberGenerator>(
        track: LocalMediaTrack, mid: String, ssrc: SSRC, rid: String? = nil, using generator: inout G
    ) {
        self.track = track
        self.mid = mid
        self.ssrc = ssrc
        self.rid = rid
        sequenceNumber = UInt16.random(in: 0...UInt16.max, using: &generator)
        timestampOffset = UInt32.random(in: 0...UInt32.max, using: &generator)
        packetizer = VP8Packetizer(initialPictureID: UInt16.random(in: 0...0x7FFF, using: &generator))
        // 512 video packets (~4 s at 1 Mbit/s); audio is not repaired (Opus FEC).
        history = SendHistory(capacity: track.kind == .video ? 512 : 1)
        statistics = MediaEngineStatistics.LocalTrack(name: track.name, kind: track.kind, ssrc: ssrc.rawValue)
    }

    /// The RTP timestamp of `time` on this track's clock.
    func rtpTimestamp(_ time: MediaTime) -> UInt32 {
        // ns * rate / 1e9 without overflow for a century of uptime: via microseconds.
        let ticks = time.nanoseconds / 1000 &* UInt64(clockRate) / 1_000_000
        return timestampOffset &+ UInt32(truncatingIfNeeded: ticks)
    }

    mutating func nextSequenceNumber() -> UInt16 {
        defer { sequenceNumber &+= 1 }
        return sequenceNumber
    }
}
