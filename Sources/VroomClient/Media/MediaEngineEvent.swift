import Packets
import WebRTC

/// A complete VP8 frame from a remote track, in order.
struct RemoteVideoFrame: Sendable {
    /// The VP8 bitstream (descriptors removed).
    var data: [UInt8]
    var isKeyframe: Bool
    var rtpTimestamp: UInt32
    /// When its last packet arrived.
    var arrival: MediaTime
    /// Frames (or packets) were lost before this one: a decoder must wait
    /// for a keyframe unless this is one.
    var followsLoss: Bool
}

/// One Opus packet from a remote track.
struct RemoteAudioFrame: Sendable {
    var data: [UInt8]
    var rtpTimestamp: UInt32
    var arrival: MediaTime
    /// The sender's ssrc-audio-level (RFC 6464: 0 loudest, 127 silence), when sent.
    var audioLevel: UInt8?
}

/// What a `MediaEngine` reports, on its event loop.
enum MediaEngineEvent: Sendable {
    case connectionStateChanged(MediaConnectionRole, MediaConnectionState)
    /// The server sent a PLI or FIR for a local video track's `layer`
    /// (its SSRC; 0 for a one-layer track, simulcast layers lowest first).
    case keyframeRequested(trackName: String, layer: Int)
    case remoteVideoFrame(trackSid: String, RemoteVideoFrame)
    /// Not emitted while remote audio is paused.
    case remoteAudioFrame(trackSid: String, RemoteAudioFrame)
}
