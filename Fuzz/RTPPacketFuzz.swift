// fuzz-module: Packets
// libFuzzer entry point: RTPPacketView over arbitrary bytes, every accessor
// and extension element, MutableRTPPacketView's setters on a copy, and the
// round trip view -> RTPHeader -> writePacket -> view.
// Built by scripts/fuzz.sh together with the sources of the module under test.
#if canImport(Packets)
import Packets
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func rtpPacketFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard let view = try? RTPPacketView(validating: bytes) else { return 0 }

    // Every accessor, and the invariant that the parts add up.
    var sum = Int(view.version) &+ Int(view.payloadType) &+ Int(view.sequenceNumber)
    sum &+= Int(view.timestamp) &+ Int(view.ssrc.rawValue) &+ (view.marker ? 1 : 0)
    sum &+= (view.hasPadding ? 1 : 0) &+ (view.hasExtension ? 1 : 0) &+ Int(view.extensionProfile ?? 0)
    for index in 0..<view.csrcCount { sum &+= Int(view.csrc(at: index).rawValue) }
    for byte in view.payload { sum &+= Int(byte) }
    for byte in view.extensionData { sum &+= Int(byte) }
    for element in view.headerExtensions {
        sum &+= Int(element.id)
        for byte in element.value { sum &+= Int(byte) }
        guard view.extensionValue(id: element.id) != nil else { fatalError("element not found by ID") }
    }
    if view.version != 2 || view.headerLength &+ view.payload.count &+ view.paddingLength != size {
        fatalError("lengths do not add up")
    }
    _ = sum

    // Setters on a copy: each field reads back, and nothing past byte 12 moves.
    let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
    defer { copy.deallocate() }
    copy.copyMemory(from: bytes)
    guard let mutable = try? MutableRTPPacketView(validating: copy) else {
        fatalError("mutable view refused what the view accepted")
    }
    let seed = bytes.load(fromByteOffset: 0, as: UInt32.self)  // size >= 12 here
    mutable.setSSRC(SSRC(~seed))
    mutable.setSequenceNumber(UInt16(truncatingIfNeeded: seed &* 7))
    mutable.setTimestamp(seed &+ 12345)
    mutable.setMarker(seed & 1 == 0)
    guard (try? mutable.setPayloadType(UInt8(truncatingIfNeeded: seed) & 0x7F)) != nil,
        (try? mutable.setPayloadType(0x80)) == nil
    else { fatalError("payload type range") }
    for element in view.headerExtensions {
        // Writing back the value the element already has (from the original
        // bytes) must be accepted and change nothing.
        guard let current = view.extensionValue(id: element.id),
            (try? mutable.setExtensionValue(id: element.id, current)) != nil
        else { fatalError("setExtensionValue refused a value of the right length") }
    }
    if mutable.ssrc != SSRC(~seed) || mutable.sequenceNumber != UInt16(truncatingIfNeeded: seed &* 7)
        || mutable.timestamp != seed &+ 12345 || mutable.marker != (seed & 1 == 0)
        || mutable.payloadType != UInt8(truncatingIfNeeded: seed) & 0x7F
        || copy[0] != bytes[0] || !copy[12...].elementsEqual(bytes[12...])
    {
        fatalError("setter wrote the wrong bytes")
    }

    // view -> RTPHeader -> bytes -> view gives the same header and payload.
    let header = RTPHeader(view)
    let outSize = header.packetSize(payloadCount: view.payload.count)
    let out = UnsafeMutableRawBufferPointer.allocate(byteCount: outSize, alignment: 1)
    defer { out.deallocate() }
    guard let written = try? RTPHeader.writePacket(header, payload: view.payload, to: out), written == outSize,
        let reparsed = try? RTPPacketView(validating: UnsafeRawBufferPointer(out))
    else { fatalError("could not write back a parsed header") }
    if RTPHeader(reparsed) != header || !reparsed.payload.elementsEqual(view.payload) {
        fatalError("round trip changed the packet")
    }
    return 0
}
