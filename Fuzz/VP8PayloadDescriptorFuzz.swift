// fuzz-module: Packets
// libFuzzer entry point: VP8PayloadDescriptor over arbitrary bytes, every
// accessor, parse -> fields -> write giving the same bytes (reserved and
// ignored bits aside), and the in-place rewrite on a copy.
// Built by scripts/fuzz.sh together with the sources of the module under test.
#if canImport(Packets)
import Packets
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func vp8PayloadDescriptorFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard let descriptor = try? VP8PayloadDescriptor(validating: bytes) else { return 0 }

    var sum = descriptor.length &+ Int(descriptor.partitionIndex) &+ Int(descriptor.pictureID ?? 0)
    sum &+= Int(descriptor.tl0PicIdx ?? 0) &+ Int(descriptor.temporalLayerIndex ?? 0) &+ Int(descriptor.keyIndex ?? 0)
    sum &+= (descriptor.layerSync ? 1 : 0) &+ (descriptor.isKeyframe ? 1 : 0) &+ descriptor.vp8Payload.count
    sum &+= (descriptor.nonReference ? 1 : 0) &+ (descriptor.startOfPartition ? 1 : 0)
    sum &+= (descriptor.pictureIDIs15Bit ? 1 : 0)
    if let size = descriptor.keyframeSize { sum &+= Int(size.width) &+ Int(size.height) }
    _ = sum
    guard (1...6).contains(descriptor.length), descriptor.length <= size else { fatalError("length") }

    // The writer reproduces the descriptor, bits the reader ignores cleared:
    // R in byte 0 (0x48), RSV in the X byte (0x0F), TID/Y without T, KEYIDX without K.
    let fields = VP8PayloadDescriptorFields(descriptor)
    let out = UnsafeMutableRawBufferPointer.allocate(byteCount: 8, alignment: 1)
    defer { out.deallocate() }
    guard let written = try? fields.write(to: out), written == descriptor.length else {
        fatalError("could not write back a parsed descriptor")
    }
    for index in 0..<written {
        var expected = bytes[index]
        if index == 0 { expected &= ~0x48 }
        if index == 1 { expected &= ~0x0F }
        if index == written - 1, descriptor.temporalLayerIndex != nil || descriptor.keyIndex != nil {
            if descriptor.temporalLayerIndex == nil { expected &= ~0xE0 }
            if descriptor.keyIndex == nil { expected &= ~0x1F }
        }
        if out[index] != expected { fatalError("writer changed byte \(index)") }
    }
    guard let reparsed = try? VP8PayloadDescriptor(validating: UnsafeRawBufferPointer(rebasing: out[0..<written])),
        VP8PayloadDescriptorFields(reparsed) == fields
    else { fatalError("round trip changed the fields") }

    // Rewrite a copy with values taken from the input.
    let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
    defer { copy.deallocate() }
    copy.copyMemory(from: bytes)
    let newPictureID: UInt16? = descriptor.pictureID == nil ? nil : UInt16(truncatingIfNeeded: size &* 257)
    let newTL0: UInt8? = descriptor.tl0PicIdx == nil ? nil : UInt8(truncatingIfNeeded: size)
    guard (try? VP8PayloadDescriptor.rewrite(copy, pictureID: newPictureID, tl0PicIdx: newTL0)) != nil,
        let rewritten = try? VP8PayloadDescriptor(validating: UnsafeRawBufferPointer(copy))
    else { fatalError("rewrite refused present fields") }
    var expected = fields
    if let newPictureID { expected.pictureID = newPictureID & (fields.pictureIDIs15Bit ? 0x7FFF : 0x7F) }
    if let newTL0 { expected.tl0PicIdx = newTL0 }
    if VP8PayloadDescriptorFields(rewritten) != expected || !copy[descriptor.length...].elementsEqual(bytes[descriptor.length...]) {
        fatalError("rewrite wrote the wrong bytes")
    }
    // Asking for an absent field changes nothing.
    if descriptor.tl0PicIdx == nil {
        copy.copyMemory(from: bytes)
        guard (try? VP8PayloadDescriptor.rewrite(copy, pictureID: 1, tl0PicIdx: 1)) == nil,
            copy.elementsEqual(bytes)
        else { fatalError("rewrite of an absent field wrote") }
    }
    return 0
}
