import WebRTC

extension RemoteTransportParameters {
    /// The same DTLS certificate: the same server process (each node makes
    /// its own certificate when it starts).
    func isSameServer(as other: RemoteTransportParameters) -> Bool {
        fingerprintAlgorithm == other.fingerprintAlgorithm && fingerprint.uppercased() == other.fingerprint.uppercased()
    }
}
