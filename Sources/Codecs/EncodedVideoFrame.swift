/// One compressed VP8 frame as libvpx produced it: the RTP payload after the
/// VP8 payload descriptor (RFC 7741). Its first byte is the VP8 payload
/// header, whose lowest bit P is 0 for a keyframe.
public struct EncodedVideoFrame: Sendable, Equatable {
    public var data: [UInt8]
    public var isKeyframe: Bool

    public init(data: [UInt8], isKeyframe: Bool) {
        self.data = data
        self.isKeyframe = isKeyframe
    }
}
