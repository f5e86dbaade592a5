import Packets
import WebRTC

/// How a `MediaEngine` connects.
struct MediaEngineConfiguration: Sendable {
    /// The local address every PeerConnection's UDP socket binds (port 0).
    var bindHost = "127.0.0.1"
    /// Send to this address instead of the server's SDP candidate (its
    /// UDP one; its TCP one under `.tcp`): tests route through relays.
    var serverAddressOverride: STUNAddress?
    /// UDP, ICE-TCP, or UDP falling back to ICE-TCP.
    var transportPolicy: MediaTransportPolicy = .automatic
    /// With `.automatic`: a first connection with no UDP check answered
    /// this long tries ICE-TCP.
    var tcpFallbackDelay: Duration = .seconds(2)
    /// RFC 7675: no consent for this long fails the connection with 53405.
    var consentTimeout: Duration = .seconds(30)
    /// Interval between ICE checks until one succeeds (RFC 8445 Ta, 50 ms).
    var checkInterval: Duration = .milliseconds(50)
    /// Interval between consent checks once connected (RFC 7675: 5 s).
    var consentCheckInterval: Duration = .seconds(5)
    /// The DTLS certificate; nil generates one per engine (an ECDSA P-256
    /// key: a few ms).
    var certificate: DTLSCertificate?

    init(
        bindHost: String = "127.0.0.1", serverAddressOverride: STUNAddress? = nil, consentTimeout: Duration = .seconds(30),
        checkInterval: Duration = .milliseconds(50), consentCheckInterval: Duration = .seconds(5),
        certificate: DTLSCertificate? = nil
    ) {
        self.bindHost = bindHost
        self.serverAddressOverride = serverAddressOverride
        self.consentTimeout = consentTimeout
        self.checkInterval = checkInterval
        self.consentCheckInterval = consentCheckInterval
        self.certificate = certificate
    }

    var transportConfiguration: PeerTransportConfiguration {
        PeerTransportConfiguration(
            consentTimeout: consentTimeout, checkInterval: checkInterval, consentCheckInterval: consentCheckInterval)
    }
}
