import COpus

/// A libopus decoder at 48 kHz giving interleaved 16-bit PCM. Not
/// thread-safe: one owner calls it.
public final class OpusDecoder {
    /// 120 ms at 48 kHz: the longest an Opus packet can last (RFC 6716).
    static let maxFrameSamples = 5760

    public let channels: Int

    // libopus owns this state; it is created and freed here only.
    private let state: OpaquePointer
    private var pcm: [Int16]

    /// Creates a decoder for 1 or 2 channels at 48 kHz.
    public init(channels: Int = 1) throws(CodecError) {
        guard channels == 1 || channels == 2 else { throw .invalidArgument("Opus channels \(channels): 1 or 2") }
        var error: Int32 = OPUS_OK
        guard let state = opus_decoder_create(Int32(OpusEncoder.sampleRate), Int32(channels), &error),
              error == OPUS_OK else {
            throw CodecError.opus(error)
        }
        self.state = state
        self.channels = channels
        pcm = [Int16](repeating: 0, count: Self.maxFrameSamples * channels)
    }

    deinit {
        opus_decoder_destroy(state)
    }

    /// Decodes one packet to interleaved PCM (960 samples per channel for a
    /// 20 ms packet). Throws for a packet libopus rejects.
    public func decode(_ packet: [UInt8]) throws(CodecError) -> [Int16] {
        guard !packet.isEmpty else { throw .invalidArgument("empty Opus packet") }
        return try run(packet, samples: Self.maxFrameSamples, fec: false)
    }

    /// Recovers the packet lost just before `nextPacket` from the in-band
    /// FEC data that `nextPacket` carries (20 ms, 960 samples per channel);
    /// when it carries none, libopus conceals instead. Call it before
    /// `decode(nextPacket)`.
    public func decodeFEC(from nextPacket: [UInt8]) throws(CodecError) -> [Int16] {
        guard !nextPacket.isEmpty else { throw .invalidArgument("empty Opus packet") }
        return try run(nextPacket, samples: OpusEncoder.frameSamples, fec: true)
    }

    /// Packet loss concealment: 20 ms (960 samples per channel) of audio
    /// that continues what came before, for a packet that never arrived.
    public func decodeMissing() -> [Int16] {
        (try? run(nil, samples: OpusEncoder.frameSamples, fec: false))
            ?? [Int16](repeating: 0, count: OpusEncoder.frameSamples * channels)
    }

    private func run(_ packet: [UInt8]?, samples: Int, fec: Bool) throws(CodecError) -> [Int16] {
        let state = self.state
        let decoded: Int32 = pcm.withUnsafeMutableBufferPointer { output in
            if let packet {
                return packet.withUnsafeBufferPointer { input in
                    opus_decode(state, input.baseAddress, Int32(clamping: input.count),
                                output.baseAddress!, Int32(samples), fec ? 1 : 0)
                }
            }
            return opus_decode(state, nil, 0, output.baseAddress!, Int32(samples), 0)
        }
        guard decoded >= 0 else { throw CodecError.opus(decoded) }
        return Array(pcm[0..<Int(decoded) * channels])
    }
}
