import Dispatch
import Foundation
import NIOCore
import NIOSSL

/// How to join a room: `Room.connect(to:options:delegate:)`.
public struct ConnectOptions: Sendable {
    /// An access token (PROTOCOL.md section 2).
    public var token: String
    /// The room's unique name or SID; may be nil when the token names one.
    public var roomName: String?
    /// Published as soon as the room is joined.
    public var audioTracks: [LocalAudioTrack] = []
    public var videoTracks: [LocalVideoTrack] = []
    /// Where delegate callbacks run.
    public var delegateQueue: DispatchQueue = .main
    /// `false`: subscribe to nothing (a publish-only client).
    public var isAutomaticSubscriptionEnabled = true
    /// Decode received video and read the frame numbers back; `false`
    /// only counts and checks packets (a load tester's many subscribers).
    public var decodesRemoteVideo = true
    /// Decode received audio (to find its frequency); see `decodesRemoteVideo`.
    public var decodesRemoteAudio = true
    /// Signaling and media I/O; many rooms may share one group. Default:
    /// NIO's shared singleton group.
    public var eventLoopGroup: (any EventLoopGroup)?
    /// Interruptions and app lifecycle (see `SystemNotification`).
    public var notificationCenter: SystemNotificationCenter = .default
    /// Local address the media sockets bind to.
    public var mediaBindHost = "0.0.0.0"
    /// Without a valid ICE check answer for this long the media connection
    /// counts as lost and the SDK restarts ICE (RFC 7675 says 30 s).
    public var iceConsentTimeout: Duration = .seconds(30)
    /// How long to wait for `joined` before failing with 53000 (redirects included).
    public var connectTimeout: Duration = .seconds(15)
    /// More servers to resume at, as base URLs like `Room.connect(to:)`'s.
    ///
    /// When the signaling connection drops, the session resumes within the
    /// reconnect window (PROTOCOL.md 3.6), trying in turn, each attempt at
    /// the next: the node the room was last joined on (or that a
    /// `reconnect` named), the URL given to `connect`, then these. A
    /// cluster behind a load balancer needs none: the balancer sends the
    /// resume to a live node. Without one, name a few nodes, so that a
    /// session whose node died can resume on another. The first join does
    /// not use them; it follows the server's redirects (at most 3).
    public var fallbackURLs: [URL] = []
    /// UDP, ICE-TCP, or UDP falling back to ICE-TCP (the default).
    public var mediaTransport: MediaTransportPolicy = .automatic
    /// With `.automatic`: how long a first connection waits for a UDP
    /// check's answer before it tries ICE-TCP.
    public var iceTCPFallbackDelay: Duration = .seconds(2)
    /// Send media to this address instead of the server's candidate
    /// ("host:port"; tests route media through an impairment relay): its
    /// UDP candidate, or with `mediaTransport = .tcp` its ICE-TCP one.
    public var mediaServerAddressOverride: String?
    /// Twilio's shape: `[.vp8(simulcast: true)]` publishes every video
    /// track in three layers (PROTOCOL.md section 7). Empty: VP8, one layer.
    public var preferredVideoCodecs: [VideoCodec] = []
    /// Sent in `join`; nil leaves the server's defaults (Twilio's).
    public var bandwidthProfile: BandwidthProfileOptions?
    /// TLS for `https` (`wss://`) servers; nil: the system's trust roots.
    /// A server with a private CA or a self-signed certificate:
    /// `var tls = TLSConfiguration.makeClientConfiguration();
    /// tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path))`.
    /// Give the server by host name: the WebSocket client sends the URL's
    /// host as SNI, which NIOSSL refuses for an IP address.
    public var tlsConfiguration: TLSConfiguration?

    public init(token: String, roomName: String? = nil) {
        self.token = token
        self.roomName = roomName
    }
}
