/// The table-of-contents byte that starts every Opus packet (RFC 6716
/// section 3.1).
///
/// ```
///  0 1 2 3 4 5 6 7
/// +-+-+-+-+-+-+-+-+
/// | config  |s| c |
/// +-+-+-+-+-+-+-+-+
/// ```
///
/// config (Table 2):
///
/// ```
/// +-----------------------+-----------+-----------+-------------------+
/// | Configuration Number  | Mode      | Bandwidth | Frame Sizes       |
/// +-----------------------+-----------+-----------+-------------------+
/// | 0...3                 | SILK-only | NB        | 10, 20, 40, 60 ms |
/// | 4...7                 | SILK-only | MB        | 10, 20, 40, 60 ms |
/// | 8...11                | SILK-only | WB        | 10, 20, 40, 60 ms |
/// | 12...13               | Hybrid    | SWB       | 10, 20 ms         |
/// | 14...15               | Hybrid    | FB        | 10, 20 ms         |
/// | 16...19               | CELT-only | NB        | 2.5, 5, 10, 20 ms |
/// | 20...23               | CELT-only | WB        | 2.5, 5, 10, 20 ms |
/// | 24...27               | CELT-only | SWB       | 2.5, 5, 10, 20 ms |
/// | 28...31               | CELT-only | FB        | 2.5, 5, 10, 20 ms |
/// +-----------------------+-----------+-----------+-------------------+
/// ```
///
/// s: stereo. c: 0 one frame, 1 two equal frames, 2 two frames of
/// different sizes, 3 an arbitrary number of frames (count in the next byte).
public struct OpusTOC: Equatable, Hashable, Sendable {
    /// The coding mode a configuration uses.
    public enum Mode: Equatable, Hashable, Sendable {
        case silk
        case hybrid
        case celt
    }

    /// Audio bandwidth: NB 4 kHz, MB 6 kHz, WB 8 kHz, SWB 12 kHz, FB 20 kHz.
    public enum Bandwidth: Equatable, Hashable, Sendable {
        case narrowband
        case mediumband
        case wideband
        case superwideband
        case fullband
    }

    /// The byte as it appears in the packet.
    public let rawValue: UInt8

    /// Every byte is a valid TOC; only what follows it can be malformed.
    @inlinable
    public init(_ byte: UInt8) {
        rawValue = byte
    }

    /// 0-31.
    @inlinable public var config: UInt8 { rawValue >> 3 }
    @inlinable public var isStereo: Bool { rawValue & 0x04 != 0 }
    /// c: 0-3.
    @inlinable public var frameCountCode: UInt8 { rawValue & 0x03 }

    @inlinable
    public var mode: Mode {
        switch config {
        case 0...11: .silk
        case 12...15: .hybrid
        default: .celt
        }
    }

    @inlinable
    public var bandwidth: Bandwidth {
        switch config {
        case 0...3, 16...19: .narrowband
        case 4...7: .mediumband
        case 8...11, 20...23: .wideband
        case 12...13, 24...27: .superwideband
        default: .fullband
        }
    }

    /// One frame's duration in samples at 48 kHz (RTP's Opus clock, RFC 7587
    /// section 4.1): 120 = 2.5 ms, 240 = 5 ms, 480 = 10 ms, 960 = 20 ms,
    /// 1920 = 40 ms, 2880 = 60 ms.
    @inlinable
    public var frameDuration: Int {
        switch mode {
        // SILK: 10, 20, 40, 60 ms.
        case .silk: config & 3 == 3 ? 2880 : 480 << Int(config & 3)
        // Hybrid: 10, 20 ms.
        case .hybrid: 480 << Int(config & 1)
        // CELT: 2.5, 5, 10, 20 ms.
        case .celt: 120 << Int(config & 3)
        }
    }
}

/// The frame count and duration of an Opus packet (RFC 6716 section 3.2),
/// read from its TOC byte and, for code 3, its frame count byte.
///
/// ```
///  0                   1
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// | config  |s|1|1|v|p|     M     |   code 3 (section 3.2.5)
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// Frame lengths are not checked: forwarding needs the duration (for
/// timestamps and DTX detection), and the decoder checks the rest.
public struct OpusPacketInfo: Equatable, Hashable, Sendable {
    public let toc: OpusTOC
    /// 1-48.
    public let frameCount: Int
    /// Code 3 only: the v bit (frames of different sizes).
    public let isVariableBitrate: Bool
    /// Code 3 only: the p bit (padding length bytes follow).
    public let hasPadding: Bool

    /// The longest packet RFC 6716 section 3.2.5 allows: 120 ms at 48 kHz.
    public static let maximumDuration = 5760

    /// Throws `.truncated` for an empty packet or a code 3 packet without its
    /// frame count byte, and `.invalidField` for a code 3 count of 0 or a
    /// packet longer than 120 ms.
    @inlinable
    public init(validating packet: UnsafeRawBufferPointer) throws(PacketError) {
        guard packet.count >= 1 else { throw .truncated }
        let toc = OpusTOC(packet.u8(0))
        var frameCount = 1
        var isVariableBitrate = false
        var hasPadding = false
        switch toc.frameCountCode {
        case 0: frameCount = 1
        case 1, 2: frameCount = 2
        default:
            guard packet.count >= 2 else { throw .truncated }
            let countByte = packet.u8(1)
            frameCount = Int(countByte & 0x3F)
            isVariableBitrate = countByte & 0x80 != 0
            hasPadding = countByte & 0x40 != 0
            guard frameCount >= 1 else { throw .invalidField }
        }
        // At most 63 frames of 2880 samples: no overflow.
        guard frameCount &* toc.frameDuration <= Self.maximumDuration else { throw .invalidField }
        self.toc = toc
        self.frameCount = frameCount
        self.isVariableBitrate = isVariableBitrate
        self.hasPadding = hasPadding
    }

    /// Samples at 48 kHz, at most 5760.
    @inlinable
    public var duration: Int { frameCount &* toc.frameDuration }
}
