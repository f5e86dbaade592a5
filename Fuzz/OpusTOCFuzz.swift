// fuzz-module: Packets
// libFuzzer entry point: OpusPacketInfo over arbitrary bytes; checks the
// invariants RFC 6716 section 3.2 gives (1-48 frames, at most 120 ms).
// Built by scripts/fuzz.sh together with the sources of the module under test.
#if canImport(Packets)
import Packets
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func opusTOCFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard let info = try? OpusPacketInfo(validating: bytes) else {
        if size >= 1, bytes[0] & 3 != 3 {
            // Codes 0-2 carry at most 2 frames of 60 ms = 120 ms: always valid.
            fatalError("refused a code 0-2 packet")
        }
        return 0
    }
    let toc = info.toc
    _ = (toc.mode, toc.bandwidth, toc.isStereo, info.hasPadding, info.isVariableBitrate)
    guard toc.rawValue == bytes[0], toc.config <= 31, toc.frameCountCode <= 3,
        [120, 240, 480, 960, 1920, 2880].contains(toc.frameDuration),
        (1...48).contains(info.frameCount),
        info.duration == info.frameCount * toc.frameDuration,
        info.duration <= OpusPacketInfo.maximumDuration
    else { fatalError("invariant broken") }
    return 0
}
