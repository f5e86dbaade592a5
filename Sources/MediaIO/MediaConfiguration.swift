import Packets
import SFU
import WebRTC

/// How a node's media plane listens and what it announces (PROTOCOL.md
/// section 1).
public struct MediaConfiguration: Sendable {
    /// The address the UDP sockets bind (0.0.0.0 in production, 127.0.0.1 with --dev).
    public var bindAddress: String
    /// Worker k listens on `basePort + k`; 0 lets the kernel pick each port.
    public var basePort: UInt16
    public var workers: Int
    /// The addresses put into ICE candidates (`--announce-ip`), each with the
    /// worker's port.
    public var announcedAddresses: [String]
    /// RFC 7675: media stops this long after the last authenticated check (53405).
    public var consentTimeoutSeconds: Double
    /// Network quality's sampling and rules (PROTOCOL.md 3.8); samples are
    /// taken every `minimumInterval`.
    public var networkQuality: NetworkQualityMonitor.Configuration
    /// Dominant speaker's threshold and times.
    public var dominantSpeaker: DominantSpeakerConfiguration
    /// ICE-TCP: a TCP listener per worker at its UDP port number, passive
    /// TCP candidates (PROTOCOL.md section 9).
    public var iceTCP: ICETCPConfiguration
    /// A room's subscribers share its home worker until this many are
    /// there; the next ones go to the worker holding fewest of the room's,
    /// which gets the room's packets from the home through a `RelayRing`
    /// (issue 16). With one worker, nothing to spread.
    public var spreadRoomAfter: Int

    public init(
        bindAddress: String = "0.0.0.0", basePort: UInt16 = 7882, workers: Int = 1,
        announcedAddresses: [String] = ["127.0.0.1"], consentTimeoutSeconds: Double = 30,
        networkQuality: NetworkQualityMonitor.Configuration = .init(),
        dominantSpeaker: DominantSpeakerConfiguration = .init(), iceTCP: ICETCPConfiguration = .init(),
        spreadRoomAfter: Int = 32
    ) {
        self.iceTCP = iceTCP
        self.spreadRoomAfter = max(1, spreadRoomAfter)
        self.networkQuality = networkQuality
        self.dominantSpeaker = dominantSpeaker
        self.bindAddress = bindAddress
        self.basePort = basePort
        self.workers = max(1, workers)
        self.announcedAddresses = announcedAddresses
        self.consentTimeoutSeconds = consentTimeoutSeconds
    }
}
