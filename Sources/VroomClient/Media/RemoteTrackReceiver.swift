import Packets
import WebRTC

/// The receive state of one remote track on the subscriber connection:
/// statistics for receiver reports, the VP8 frame assembler and the NACK
/// schedule (video), and the keyframe-request throttle.
struct RemoteTrackReceiver {
    var track: RemoteMediaTrack
    var ssrc: SSRC
    var payloadType: UInt8?
    /// The offer's RTX (RFC 4588) payload type and SSRC for this video
    /// track, nil without RTX; a learned RTX SSRC replaces the offered one.
    var rtxPayloadType: UInt8?
    var rtxSSRC: SSRC?
    var unwrapper = SequenceNumberUnwrapper()
    var reception: ReceptionStatistics
    var assembler = VP8FrameAssembler()
    var nacks = NACKScheduler()
    var statistics: MediaEngineStatistics.RemoteTrack
    var lastKeyframeRequest: MediaTime?
    /// Skips seen by the last check: a new one asks for a keyframe.
    var handledSkips = 0

    init(track: RemoteMediaTrack, ssrc: SSRC, payloadType: UInt8?) {
        self.track = track
        self.ssrc = ssrc
        self.payloadType = payloadType
        reception = ReceptionStatistics(clockRate: track.kind == .video ? 90000 : 48000)
        statistics = MediaEngineStatistics.RemoteTrack(trackSid: track.trackSid, kind: track.kind, ssrc: ssrc.rawValue)
    }
}
