import Packets
import SDP

/// The server's side of one PeerConnection's transport as it appears in
/// every offer and answer (PROTOCOL.md section 5): ICE-lite credentials
/// unique to the connection, the sha-256 fingerprint of the process's
/// certificate, one host UDP candidate per announced address on the
/// worker's single port and, with ICE-TCP, one passive host TCP candidate
/// per announced address at the same port number (RFC 6544).
///
/// An ICE restart on the subscriber connection is this value with new
/// `ice`: nothing else changes.
public struct NegotiationTransport: Hashable, Sendable {
    public var ice: ICECredentials
    /// The certificate's sha-256 digest as colon-separated upper-case hex
    /// (`AB:CD:...`, 32 pairs).
    public var fingerprint: String
    /// One per announced address, all on the worker's UDP port (7882 + k).
    public var candidates: [STUNAddress]
    /// Passive TCP candidates (RFC 6544): the worker's TCP listener, empty
    /// when ICE-TCP is off.
    public var tcpCandidates: [STUNAddress]

    public init(ice: ICECredentials, fingerprint: String, candidates: [STUNAddress], tcpCandidates: [STUNAddress] = []) {
        self.ice = ice
        self.fingerprint = fingerprint
        self.candidates = candidates
        self.tcpCandidates = tcpCandidates
    }

    /// RFC 6544 section 4.2 for a passive host TCP candidate: type
    /// preference 90 (libwebrtc's for host TCP: below every UDP host
    /// candidate's 126, so a client whose UDP works keeps UDP), local
    /// preference 2^13 x 4 (direction-pref of a passive host candidate) +
    /// other-pref 8191 minus the index, component 1:
    /// 1520435199, 1520434943, ...
    static func tcpPriority(index: Int) -> UInt32 {
        let localPreference = UInt32(4 << 13) | UInt32(8191 - min(index, 8191))
        return UInt32(90) << 24 | localPreference << 8 | UInt32(256 - 1)
    }

    /// The `a=candidate` values: foundation `1`, `2`, ... (one per address:
    /// RFC 8445 section 5.1.1.3 gives different bases different
    /// foundations), component 1 (rtcp-mux, no RTCP component), `udp`,
    /// priority from RFC 8445 section 5.1.2.1 with type preference 126
    /// (host) and local preference 65535 minus the index, so the first
    /// announced address is preferred: 2130706431, 2130706175, ...
    ///
    /// Then the passive TCP candidates (`tcptype passive`, port the
    /// listener's; RFC 6544 section 4.5), foundations continuing after the
    /// UDP ones (a different transport is a different base), priorities
    /// from `tcpPriority`.
    public var sdpCandidates: [SDPCandidate] {
        let udp = candidates.enumerated().map { index, address in
            let localPreference = UInt32(65535 - min(index, 65535))
            let priority = UInt32(126) << 24 | localPreference << 8 | UInt32(256 - 1)
            return SDPCandidate(
                foundation: String(index + 1), component: 1, transport: "udp", priority: priority,
                address: Self.addressText(address), port: address.port, type: .host)
        }
        let tcp = tcpCandidates.enumerated().map { index, address in
            SDPCandidate(
                foundation: String(candidates.count + index + 1), component: 1, transport: "tcp",
                priority: Self.tcpPriority(index: index), address: Self.addressText(address), port: address.port,
                type: .host, extensions: [SDPCandidateExtension(name: "tcptype", value: "passive")])
        }
        return udp + tcp
    }

    /// The port and `c=` line of every accepted m-line: the first
    /// candidate's, else the conventional 9 and 0.0.0.0 (RFC 8839 section
    /// 4.2.1.1 for a section without candidates).
    var mediaPort: UInt16 { candidates.first?.port ?? 9 }

    var connection: SDPConnection {
        guard let first = candidates.first else { return SDPConnection(address: "0.0.0.0") }
        return SDPConnection(addressType: first.family == .ipv4 ? "IP4" : "IP6", address: Self.addressText(first))
    }

    /// The address without its port: `192.0.2.1`, `2001:db8::1`.
    static func addressText(_ address: STUNAddress) -> String {
        let text = address.description
        if address.family == .ipv6, text.first == "[", let close = text.lastIndex(of: "]") {
            return String(text[text.index(after: text.startIndex)..<close])
        }
        guard let colon = text.lastIndex(of: ":") else { return text }
        return String(text[..<colon])
    }

    /// The transport lines of one accepted m-line, in Chromium's order:
    /// candidates, end-of-candidates (ICE-lite knows all its candidates at
    /// once), ufrag, pwd, fingerprint, setup.
    func attributes(setup: SDPSetupRole) -> [SDPAttribute] {
        var lines = sdpCandidates.map(SDPAttribute.candidate)
        lines.append(.endOfCandidates)
        lines.append(.iceUfrag(ice.ufrag))
        lines.append(.icePwd(ice.password))
        lines.append(.fingerprint(SDPFingerprint(hashFunction: "sha-256", value: fingerprint)))
        lines.append(.setup(setup))
        return lines
    }
}
