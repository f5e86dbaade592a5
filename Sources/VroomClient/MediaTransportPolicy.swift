/// Which paths the media connections may take to the server
/// (`ConnectOptions.mediaTransport`, PROTOCOL.md section 9).
public enum MediaTransportPolicy: String, Sendable, CaseIterable {
    /// UDP first; when no UDP check has been answered after
    /// `ConnectOptions.iceTCPFallbackDelay`, ICE-TCP to the server's passive
    /// TCP candidate (a network that drops UDP). A browser does the same by
    /// giving TCP candidates a lower priority.
    case automatic
    /// UDP only.
    case udp
    /// ICE-TCP only (RFC 6544, RFC 4571 framing): fails with 53405 when the
    /// server offers no TCP candidate.
    case tcp
}
