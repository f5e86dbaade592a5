import Packets

/// Tunables of a PeerTransport; the defaults are what the protocol asks.
public struct PeerTransportConfiguration: Sendable, Hashable {
    /// Consent freshness (RFC 7675 section 5.1): without an authenticated
    /// check (lite) or a check's success (controlling) for this long after
    /// selection, the transport fails with 53405. 30 s as the RFC says.
    public var consentTimeout: Duration
    /// Largest DTLS datagram: 1200 bytes fit any path with IPv6 + UDP
    /// headers and a VPN's overhead (libwebrtc uses the same).
    public var mtu: Int
    /// Controlling mode: interval between checks until one succeeds (RFC 8445
    /// section 14.2's Ta of 50 ms).
    public var checkInterval: Duration
    /// Controlling mode: interval between consent checks once connected
    /// (RFC 7675 section 5.1: 5 s, randomised there; fixed here).
    public var consentCheckInterval: Duration
    /// SRTP profiles offered (client) or accepted (server), most preferred
    /// first; a DTLS server picks by its own order. Default: GCM, then CM.
    public var srtpProfiles: [SRTPProfile]

    public init(consentTimeout: Duration = .seconds(30), mtu: Int = 1200,
                checkInterval: Duration = .milliseconds(50), consentCheckInterval: Duration = .seconds(5),
                srtpProfiles: [SRTPProfile] = SRTPProfile.allCases) {
        self.consentTimeout = consentTimeout
        self.mtu = mtu
        self.checkInterval = checkInterval
        self.consentCheckInterval = consentCheckInterval
        self.srtpProfiles = srtpProfiles
    }
}

extension Duration {
    /// Whole nanoseconds (negative durations count as 0), for `MediaTime`.
    var mediaNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) &* 1_000_000_000 &+ UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
