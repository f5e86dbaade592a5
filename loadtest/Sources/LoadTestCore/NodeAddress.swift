import Foundation

/// Which node a participant is connected through, as the report names it:
/// the `host:port` of its signaling URL (PROTOCOL.md 8: each node has its
/// own `--node-url`). Nodes behind one load balancer share its address;
/// a redirect or a move gives a node's own.
public enum NodeAddress {
    /// `ws://10.0.0.5:7880/v1/signal` -> `10.0.0.5:7880`; the scheme's port
    /// when none is written (`wss://` 443, `ws://` 80); an IPv6 host in brackets.
    public static func of(_ url: URL) -> String? {
        guard var host = url.host, !host.isEmpty else { return nil }
        if host.contains(":") && !host.hasPrefix("[") { host = "[\(host)]" }
        let port = url.port ?? (["wss", "https"].contains(url.scheme?.lowercased() ?? "") ? 443 : 80)
        return "\(host):\(port)"
    }
}
