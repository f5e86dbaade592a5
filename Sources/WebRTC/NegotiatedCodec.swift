import SDP

/// The one codec an m-line carries after negotiation: Opus/48000/2 on
/// audio, VP8/90000 on video (PROTOCOL.md section 5), with the payload
/// types of this connection. Payload types differ per connection (aiortc
/// publishes Opus on 96 and VP8 on 97, Chromium on 111 and 96): the SFU
/// rewrites them when forwarding.
public struct NegotiatedCodec: Hashable, Sendable {
    public enum Name: Hashable, Sendable {
        case opus
        case vp8
    }

    public var name: Name
    public var payloadType: UInt8
    /// RTX (RFC 4588) for VP8, when both sides agreed on it; nil otherwise
    /// (never for Opus).
    public var rtxPayloadType: UInt8?
    /// 48000 for Opus, 90000 for VP8.
    public var clockRate: UInt32 {
        switch name {
        case .opus: 48000
        case .vp8: 90000
        }
    }

    public init(name: Name, payloadType: UInt8, rtxPayloadType: UInt8? = nil) {
        self.name = name
        self.payloadType = payloadType
        self.rtxPayloadType = rtxPayloadType
    }

    /// The codec this server takes on `kind`, nil for data channels and
    /// other media.
    static func name(for kind: MediaKind) -> Name? {
        switch kind {
        case .audio: .opus
        case .video: .vp8
        default: nil
        }
    }

    /// Whether `rtpmap` is the codec `name`: Opus needs 48000 Hz and 2
    /// channels (RFC 7587 section 7: always written `/2`), VP8 90000 Hz
    /// (RFC 7741 section 6.1). Encoding names compare case-insensitively
    /// (webrtcbin writes `OPUS`).
    static func matches(_ rtpmap: SDPRTPMap, _ name: Name) -> Bool {
        switch name {
        case .opus: rtpmap.isEncoding("opus") && rtpmap.clockRate == 48000 && rtpmap.channels == 2
        case .vp8: rtpmap.isEncoding("VP8") && rtpmap.clockRate == 90000
        }
    }

    /// The first payload type of `media` (in `m=` preference order) that is
    /// `name`, and the RTX payload type whose `apt=` names it (VP8 only).
    static func find(_ name: Name, in media: MediaDescription) -> NegotiatedCodec? {
        let listed = media.formats.compactMap { UInt8($0) }
        guard let primary = listed.first(where: { pt in media.rtpmap(for: pt).map { matches($0, name) } ?? false })
        else { return nil }
        var rtx: UInt8?
        if name == .vp8 {
            rtx = listed.first { pt in
                guard let map = media.rtpmap(for: pt), map.isEncoding("rtx"), map.clockRate == 90000 else { return false }
                return media.fmtp(for: pt)?["apt"] == String(primary)
            }
        }
        return NegotiatedCodec(name: name, payloadType: primary, rtxPayloadType: rtx)
    }
}
