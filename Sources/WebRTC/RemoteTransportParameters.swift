/// What the remote side's SDP says about its transport: its ICE credentials
/// and the fingerprint its DTLS certificate must match (RFC 8122).
public struct RemoteTransportParameters: Hashable, Sendable {
    public var ice: ICECredentials
    /// The hash function of `a=fingerprint`, lowercased (`sha-256`).
    public var fingerprintAlgorithm: String
    /// Colon-separated uppercase hex, as in `a=fingerprint` (`AB:CD:…`).
    public var fingerprint: String

    public init(ice: ICECredentials, fingerprintAlgorithm: String, fingerprint: String) {
        self.ice = ice
        self.fingerprintAlgorithm = fingerprintAlgorithm
        self.fingerprint = fingerprint
    }
}
