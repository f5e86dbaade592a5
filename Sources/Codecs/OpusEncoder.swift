import COpus

/// A libopus encoder at 48 kHz in VOIP mode with in-band FEC, taking 20 ms
/// frames of interleaved 16-bit PCM. Not thread-safe: one owner calls it.
public final class OpusEncoder {
    /// Opus's RTP clock and this encoder's input rate (RFC 7587).
    public static let sampleRate = 48_000
    /// Samples per channel in one 20 ms frame at 48 kHz.
    public static let frameSamples = 960
    /// Largest packet libopus may write: RFC 6716 allows 1275 bytes per
    /// frame; 1500 leaves room and stays one allocation.
    static let maxPacketBytes = 1500

    public let channels: Int
    public private(set) var bitrate: Int

    // libopus owns this state; it is created and freed here only.
    private let state: OpaquePointer
    private var packet = [UInt8](repeating: 0, count: OpusEncoder.maxPacketBytes)

    /// Creates a VOIP encoder; `channels` 1 or 2, `bitrate` in bit/s
    /// (libopus accepts 500...512_000). FEC is on with an expected loss of
    /// `expectedLossPercent`, which is what makes libopus spend bits on it.
    public init(channels: Int = 1, bitrate: Int = 32_000, expectedLossPercent: Int = 10) throws(CodecError) {
        guard channels == 1 || channels == 2 else { throw .invalidArgument("Opus channels \(channels): 1 or 2") }
        guard (500...512_000).contains(bitrate) else { throw .invalidArgument("Opus bitrate \(bitrate)") }
        var error: Int32 = OPUS_OK
        guard let state = opus_encoder_create(Int32(Self.sampleRate), Int32(channels), OPUS_APPLICATION_VOIP, &error),
              error == OPUS_OK else {
            throw CodecError.opus(error)
        }
        for result in [
            vroom_opus_set_bitrate(state, Int32(bitrate)),
            vroom_opus_set_inband_fec(state, 1),
            vroom_opus_set_packet_loss_perc(state, Int32(clamping: min(100, max(0, expectedLossPercent)))),
        ] where result != OPUS_OK {
            opus_encoder_destroy(state)
            throw CodecError.opus(result)
        }
        // Stored last: a class initializer that throws after its properties
        // are set runs deinit, which would destroy the state twice.
        self.state = state
        self.channels = channels
        self.bitrate = bitrate
    }

    deinit {
        opus_encoder_destroy(state)
    }

    /// Encodes 20 ms: exactly 960 samples per channel, interleaved. Returns
    /// one Opus packet (its first byte the TOC, RFC 6716 section 3.1).
    public func encode(_ pcm: [Int16]) throws(CodecError) -> [UInt8] {
        guard pcm.count == Self.frameSamples * channels else {
            throw .invalidArgument("Opus frame of \(pcm.count) samples, expected \(Self.frameSamples * channels)")
        }
        let state = self.state
        // Both buffers are non-empty (checked count, fixed 1500 bytes): the
        // base addresses exist.
        let written = pcm.withUnsafeBufferPointer { input in
            packet.withUnsafeMutableBufferPointer { output in
                opus_encode(state, input.baseAddress!, Int32(Self.frameSamples), output.baseAddress!, Int32(output.count))
            }
        }
        guard written > 0 else { throw CodecError.opus(written) }
        return Array(packet[0..<Int(written)])
    }

    /// Changes the target bitrate (bit/s), clamped to 500...512_000.
    public func setBitrate(_ bitsPerSecond: Int) {
        let clamped = min(512_000, max(500, bitsPerSecond))
        if vroom_opus_set_bitrate(state, Int32(clamped)) == OPUS_OK { bitrate = clamped }
    }
}
