/// `a=extmap:<id>[/<direction>] <URI> [<extension attributes>]` (RFC 8285
/// section 8), e.g. `a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01`
/// or Firefox's `a=extmap:2/recvonly urn:ietf:params:rtp-hdrext:csrc-audio-level`.
public struct SDPExtmap: Equatable, Hashable, Sendable {
    /// 1...14 for one-byte headers, up to 255 with two-byte headers.
    public var id: UInt16
    public var direction: SDPDirection?
    public var uri: String
    /// Text after the URI, kept as written; nil when absent.
    public var attributes: String?

    public init(id: UInt16, direction: SDPDirection? = nil, uri: String, attributes: String? = nil) {
        self.id = id
        self.direction = direction
        self.uri = uri
        self.attributes = attributes
    }

    /// nil when spacing leaves the id or the URI empty (`1  urn:x`, `1 `,
    /// ` 1 urn:x`): the line is then kept as `.other`. The extension
    /// attributes are free text and kept as written.
    init?(parsing value: Substring) throws(SDPError) {
        guard let (head, rest) = value.sdpSplitOnce(0x20) else {
            throw SDPError(line: 0, "bad extmap attribute: expected '<id> <URI>'")
        }
        let (uri, attributes) = rest.sdpSplitOnce(0x20) ?? (rest, nil)
        guard !head.isEmpty, !uri.isEmpty else { return nil }
        var direction: SDPDirection?
        var idText = head
        if let (number, dir) = head.sdpSplitOnce(UInt8(ascii: "/")) {
            guard let parsed = SDPDirection(rawValue: String(dir)) else {
                throw SDPError(line: 0, "bad extmap attribute: unknown direction '\(dir)'")
            }
            idText = number
            direction = parsed
        }
        guard let id = sdpDecimal(idText, as: UInt16.self) else {
            throw SDPError(line: 0, "bad extmap attribute: bad id")
        }
        self.init(id: id, direction: direction, uri: String(uri), attributes: attributes.map(String.init))
    }

    /// The text after `a=extmap:`.
    public var value: String {
        "\(id)" + (direction.map { "/\($0.rawValue)" } ?? "") + " " + uri + (attributes.map { " \($0)" } ?? "")
    }
}

extension SDPExtmap {
    /// URIs PROTOCOL.md section 5 keeps when offered.
    public static let midURI = "urn:ietf:params:rtp-hdrext:sdes:mid"
    public static let audioLevelURI = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"
    public static let absSendTimeURI = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    public static let transportCCURI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    public static let ridURI = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
    public static let repairedRIDURI = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"
}
