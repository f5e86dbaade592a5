import Packets

/// One simulcast layer of a published video track as the publish offer
/// declares it (PROTOCOL.md section 7): its RID and, when the offer or the
/// `tracks` entry gives them, its SSRCs and size. Layers are passed lowest
/// first. The router binds packets to a layer by RID (the
/// `sdes:rtp-stream-id` extension, `repaired-rtp-stream-id` for RTX), then
/// by SSRC once seen, and learns each layer's size from its keyframes.
public struct SimulcastLayer: Equatable, Hashable, Sendable {
    public var rid: String
    public var ssrc: SSRC?
    public var rtxSSRC: SSRC?
    public var width: Int?
    public var height: Int?

    public init(rid: String, ssrc: SSRC? = nil, rtxSSRC: SSRC? = nil, width: Int? = nil, height: Int? = nil) {
        self.rid = rid
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
        self.width = width
        self.height = height
    }
}
