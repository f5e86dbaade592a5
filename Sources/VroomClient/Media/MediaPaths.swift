import Packets

/// Where a media connection may check: the server's UDP candidate and its
/// passive ICE-TCP candidate, as far as the transport policy allows.
struct MediaPaths: Equatable, Sendable {
    var udp: STUNAddress?
    var tcp: STUNAddress?
}

extension ServerDescription {
    /// The paths `configuration.transportPolicy` allows. Throws 53405 when
    /// the policy is ICE-TCP only and the server offers no TCP candidate
    /// (a server run with `--no-ice-tcp`), 53402 when no UDP candidate fits.
    func paths(_ configuration: MediaEngineConfiguration) throws(MediaEngineError) -> MediaPaths {
        let tcp = tcpTarget(bindHost: configuration.bindHost)
        switch configuration.transportPolicy {
        case .udp:
            return MediaPaths(udp: try target(bindHost: configuration.bindHost, override: configuration.serverAddressOverride))
        case .tcp:
            guard let tcp else {
                throw MediaEngineError(code: 53405, message: "the server offers no ICE-TCP candidate, and the media transport is TCP only")
            }
            return MediaPaths(tcp: configuration.serverAddressOverride ?? tcp)
        case .automatic:
            do {
                return MediaPaths(
                    udp: try target(bindHost: configuration.bindHost, override: configuration.serverAddressOverride), tcp: tcp)
            } catch {
                // No UDP candidate: TCP alone, if the server offers one.
                guard let tcp else { throw error }
                return MediaPaths(tcp: tcp)
            }
        }
    }
}
