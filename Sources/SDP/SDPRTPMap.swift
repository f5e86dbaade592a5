/// `a=rtpmap:<payload type> <encoding name>/<clock rate>[/<channels>]`
/// (RFC 8866 section 6.6), e.g. `a=rtpmap:111 opus/48000/2`,
/// `a=rtpmap:96 VP8/90000`.
public struct SDPRTPMap: Equatable, Hashable, Sendable {
    /// 0...127 (RFC 3551); dynamic types are 96...127 and, in WebRTC, 35...63.
    public var payloadType: UInt8
    /// As written: `opus`, `VP8`, `rtx`, Firefox's `G722`, webrtcbin's `OPUS`.
    public var encoding: String
    public var clockRate: UInt32
    /// Audio channels; nil when absent (meaning 1 for audio).
    public var channels: UInt16?

    public init(payloadType: UInt8, encoding: String, clockRate: UInt32, channels: UInt16? = nil) {
        self.payloadType = payloadType
        self.encoding = encoding
        self.clockRate = clockRate
        self.channels = channels
    }

    init(parsing value: Substring) throws(SDPError) {
        guard let (pt, rest) = value.sdpSplitOnce(0x20), let payloadType = sdpDecimal(pt, as: UInt8.self),
              payloadType < 128
        else { throw SDPError(line: 0, "bad rtpmap attribute: expected '<payload type 0-127> <encoding>/<clock rate>'") }
        let parts = rest.sdpSplit(UInt8(ascii: "/"))
        guard parts.count == 2 || parts.count == 3, !parts[0].isEmpty,
              let clockRate = sdpDecimal(parts[1], as: UInt32.self)
        else { throw SDPError(line: 0, "bad rtpmap attribute: expected '<encoding>/<clock rate>[/<channels>]'") }
        var channels: UInt16?
        if parts.count == 3 {
            guard let count = sdpDecimal(parts[2], as: UInt16.self) else {
                throw SDPError(line: 0, "bad rtpmap attribute: bad channel count")
            }
            channels = count
        }
        self.init(payloadType: payloadType, encoding: String(parts[0]), clockRate: clockRate, channels: channels)
    }

    /// The text after `a=rtpmap:`.
    public var value: String {
        "\(payloadType) \(encoding)/\(clockRate)" + (channels.map { "/\($0)" } ?? "")
    }

    /// Whether the encoding is `name`, ignoring case (`opus` vs `OPUS`, RFC 4855 section 3).
    public func isEncoding(_ name: String) -> Bool {
        encoding.lowercased() == name.lowercased()
    }
}
