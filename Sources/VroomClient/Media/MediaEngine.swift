// PLACEHOLDER (lead): the interface the engine branch implements; replaced at its merge.
import NIOCore
import Packets
import WebRTC

enum MediaKind { case audio, video }
struct LocalMediaTrack { var name: String; var kind: MediaKind; var enabled: Bool }
struct RemoteMediaTrack { var mid: String; var trackSid: String; var participantSid: String; var kind: MediaKind }
struct PublishOfferDescription { struct Track { var mid: String; var name: String; var kind: MediaKind; var enabled: Bool }; var sdp: String; var tracks: [Track] }
enum MediaConnectionRole: Hashable { case publisher, subscriber }
enum MediaConnectionState { case new, connecting, connected, failed(code: Int, message: String) }
struct MediaEngineConfiguration {
    var bindHost = "127.0.0.1"
    var serverAddressOverride: STUNAddress?
    var consentTimeout: Duration = .seconds(30)
    var consentCheckInterval: Duration = .seconds(5)
}
struct RemoteVideoFrame { var data: [UInt8]; var isKeyframe: Bool; var rtpTimestamp: UInt32; var arrival: MediaTime; var followsLoss: Bool }
struct RemoteAudioFrame { var data: [UInt8]; var rtpTimestamp: UInt32; var arrival: MediaTime }
enum MediaEngineEvent {
    case connectionStateChanged(MediaConnectionRole, MediaConnectionState)
    case keyframeRequested(trackName: String)
    case remoteVideoFrame(trackSid: String, RemoteVideoFrame)
    case remoteAudioFrame(trackSid: String, RemoteAudioFrame)
}
struct MediaEngineStatistics { struct LocalTrack { var name: String; var kind: MediaKind; var packetsSent = 0; var bytesSent = 0; var framesSent = 0; var nacksReceived = 0; var retransmissionsSent = 0; var keyframeRequestsReceived = 0 }; struct RemoteTrack { var trackSid: String; var kind: MediaKind; var packetsReceived = 0; var bytesReceived = 0; var packetsLost = 0; var jitter = 0.0; var framesReceived = 0; var nacksSent = 0; var keyframeRequestsSent = 0 }; var localTracks: [LocalTrack]; var remoteTracks: [RemoteTrack]; var roundTripTime: Duration? }
struct MediaEngineUnavailable: Error {}
final class MediaEngine {
    init(eventLoop: any EventLoop, configuration: MediaEngineConfiguration, onEvent: @escaping (MediaEngineEvent) -> Void) throws { throw MediaEngineUnavailable() }
    func setLocalTracks(_ tracks: [LocalMediaTrack]) {}
    func makePublishOffer(iceRestart: Bool) -> PublishOfferDescription { PublishOfferDescription(sdp: "", tracks: []) }
    func applyPublishAnswer(_ sdp: String) throws {}
    func setLocalTrackEnabled(name: String, _ enabled: Bool) {}
    func sendVideoFrame(trackName: String, data: [UInt8], isKeyframe: Bool, captureTime: MediaTime) {}
    func sendAudioFrame(trackName: String, data: [UInt8], audioLevel: UInt8, captureTime: MediaTime) {}
    func answerSubscribeOffer(_ sdp: String, tracks: [RemoteMediaTrack]) throws -> String { "" }
    func requestKeyframe(trackSid: String) {}
    func setRemoteAudioPaused(_ paused: Bool) {}
    func statistics() -> MediaEngineStatistics { MediaEngineStatistics(localTracks: [], remoteTracks: [], roundTripTime: nil) }
    func close() {}
}
