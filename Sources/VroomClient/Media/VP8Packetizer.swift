import Packets

/// Splits a VP8 frame into RTP payloads (RFC 7741 section 4): each starts
/// with a 4-byte payload descriptor (X=1, I=1, M=1: a 15-bit picture ID, as
/// libwebrtc writes it), S=1 and PID=0 on the first packet only, and the
/// frame's bytes are spread evenly so no packet is a tiny tail.
struct VP8Packetizer {
    /// Descriptor bytes per packet: 1 + extension byte + 2-byte picture ID.
    static let descriptorSize = 4

    /// The next frame's picture ID (15 bits).
    private(set) var pictureID: UInt16

    init(initialPictureID: UInt16) {
        pictureID = initialPictureID & 0x7FFF
    }

    /// The payloads of one frame, each at most `maximumPayloadSize` bytes
    /// (descriptor included); an empty frame gives one descriptor-only
    /// payload. Advances the picture ID.
    mutating func packetize(_ frame: [UInt8], maximumPayloadSize: Int) -> [[UInt8]] {
        let room = max(1, maximumPayloadSize - Self.descriptorSize)
        let count = max(1, (frame.count + room - 1) / room)
        // Even split: the first `frame.count % count` packets carry one more byte.
        let base = frame.count / count
        let extra = frame.count % count
        var payloads: [[UInt8]] = []
        payloads.reserveCapacity(count)
        var offset = 0
        for index in 0..<count {
            let size = base + (index < extra ? 1 : 0)
            var payload = [UInt8]()
            payload.reserveCapacity(Self.descriptorSize + size)
            payload.append(index == 0 ? 0x90 : 0x80)  // X, S on the first, PID 0
            payload.append(0x80)  // I: picture ID present
            payload.append(0x80 | UInt8(pictureID >> 8))  // M: 15 bits
            payload.append(UInt8(pictureID & 0xFF))
            payload.append(contentsOf: frame[offset..<(offset + size)])
            offset += size
            payloads.append(payload)
        }
        pictureID = (pictureID &+ 1) & 0x7FFF
        return payloads
    }
}
