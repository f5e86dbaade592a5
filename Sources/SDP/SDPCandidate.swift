/// `a=candidate:` (RFC 8839 section 5.1):
///
///     candidate:<foundation> <component> <transport> <priority>
///         <address> <port> typ <type> [raddr <address> rport <port>]
///         *(<extension name> <extension value>)
///
/// e.g. Chromium's
/// `candidate:76083615 1 udp 2122260223 127.0.0.1 47764 typ host generation 0 network-id 1 network-cost 50`.
/// Firefox writes the transport as `UDP`/`TCP`; it is kept as written.
public struct SDPCandidate: Equatable, Hashable, Sendable {
    public var foundation: String
    /// 1 = RTP, 2 = RTCP.
    public var component: UInt16
    /// `udp`, `tcp` (case as written).
    public var transport: String
    public var priority: UInt32
    /// IPv4, IPv6 or an mDNS `.local` name.
    public var address: String
    public var port: UInt16
    public var type: SDPCandidateType
    public var relatedAddress: String?
    public var relatedPort: UInt16?
    /// The remaining name/value pairs in order: generation, network-id,
    /// network-cost, tcptype, ufrag, ...
    public var extensions: [SDPCandidateExtension]

    public init(
        foundation: String, component: UInt16 = 1, transport: String = "udp", priority: UInt32,
        address: String, port: UInt16, type: SDPCandidateType = .host,
        relatedAddress: String? = nil, relatedPort: UInt16? = nil, extensions: [SDPCandidateExtension] = []
    ) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.type = type
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.extensions = extensions
    }

    /// Whether the transport is UDP (any case).
    public var isUDP: Bool { transport.lowercased() == "udp" }

    /// The value of the first extension named `name` (e.g. `tcptype`, `ufrag`).
    public func extensionValue(_ name: String) -> String? {
        extensions.first { $0.name == name }?.value
    }

    /// Parses the text after `a=candidate:` (or a trickled `candidate:` string
    /// without its prefix).
    public init(parsing value: String) throws(SDPError) {
        try self.init(parsing: Substring(value))
    }

    init(parsing value: Substring) throws(SDPError) {
        let fail = SDPError(line: 0, "bad candidate attribute: expected '<foundation> <component> <transport> <priority> <address> <port> typ <type> ...'")
        let fields = sdpFields(value)
        guard fields.count >= 8, sdpSameBytes(fields[6], "typ"),
              let component = sdpDecimal(fields[1], as: UInt16.self),
              let priority = sdpDecimal(fields[3], as: UInt32.self),
              let port = sdpDecimal(fields[5], as: UInt16.self)
        else { throw fail }
        var candidate = SDPCandidate(
            foundation: String(fields[0]), component: component, transport: String(fields[2]),
            priority: priority, address: String(fields[4]), port: port,
            type: SDPCandidateType(rawValue: String(fields[7])))
        var index = 8
        if index + 3 < fields.count, sdpSameBytes(fields[index], "raddr"), sdpSameBytes(fields[index + 2], "rport") {
            guard let relatedPort = sdpDecimal(fields[index + 3], as: UInt16.self) else {
                throw SDPError(line: 0, "bad candidate attribute: bad rport")
            }
            candidate.relatedAddress = String(fields[index + 1])
            candidate.relatedPort = relatedPort
            index += 4
        }
        guard (fields.count - index) % 2 == 0 else {
            throw SDPError(line: 0, "bad candidate attribute: extension '\(fields[fields.count - 1])' has no value")
        }
        while index < fields.count {
            candidate.extensions.append(SDPCandidateExtension(name: String(fields[index]), value: String(fields[index + 1])))
            index += 2
        }
        self = candidate
    }

    /// The text after `a=candidate:`.
    public var value: String {
        var text = "\(foundation) \(component) \(transport) \(priority) \(address) \(port) typ \(type.rawValue)"
        if let relatedAddress, let relatedPort {
            text += " raddr \(relatedAddress) rport \(relatedPort)"
        }
        for pair in extensions {
            text += " \(pair.name) \(pair.value)"
        }
        return text
    }
}

/// A candidate type (RFC 8445 section 5.1.1.1): host, srflx, prflx, relay.
public struct SDPCandidateType: RawRepresentable, Equatable, Hashable, Sendable {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let host = SDPCandidateType(rawValue: "host")
    public static let serverReflexive = SDPCandidateType(rawValue: "srflx")
    public static let peerReflexive = SDPCandidateType(rawValue: "prflx")
    public static let relay = SDPCandidateType(rawValue: "relay")
}

/// One trailing `name value` pair of a candidate line.
public struct SDPCandidateExtension: Equatable, Hashable, Sendable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
