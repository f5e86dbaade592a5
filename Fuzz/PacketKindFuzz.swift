// fuzz-module: Packets
// libFuzzer entry point: PacketKind classification over arbitrary bytes.
// Built by scripts/fuzz.sh together with the sources of the module under test.
#if canImport(Packets)
import Packets
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func packetKindFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    _ = PacketKind(classifying: bytes)
    return 0
}
