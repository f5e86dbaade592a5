import Packets
import Testing
import VroomTesting

/// Vectors built by hand from the RFC 7741 section 4.2 diagram and the
/// RFC 6386 section 9.1 frame header.
@Suite struct VP8PayloadDescriptorTests {
    // MARK: Helpers

    private func parseError(_ bytes: [UInt8]) -> PacketError? {
        bytes.withUnsafeBytes { raw -> PacketError? in
            do throws(PacketError) {
                _ = try VP8PayloadDescriptor(validating: raw)
                return nil
            } catch {
                return error
            }
        }
    }

    private func withDescriptor(
        _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (VP8PayloadDescriptor) -> Void
    ) {
        bytes.withUnsafeBytes { raw in
            do throws(PacketError) {
                body(try VP8PayloadDescriptor(validating: raw))
            } catch {
                Issue.record("parse failed: \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    private func encode(_ fields: VP8PayloadDescriptorFields) throws -> [UInt8] {
        var out = [UInt8](repeating: 0xEE, count: fields.encodedSize)
        let written = try out.withUnsafeMutableBytes { try fields.write(to: $0) }
        #expect(written == out.count)
        return out
    }

    /// Rewrites a copy of `bytes`; returns the copy or the error.
    private func rewrite(_ bytes: [UInt8], pictureID: UInt16?, tl0PicIdx: UInt8?) -> Result<[UInt8], PacketError> {
        var copy = bytes
        let failure = copy.withUnsafeMutableBytes { raw -> PacketError? in
            do throws(PacketError) {
                try VP8PayloadDescriptor.rewrite(raw, pictureID: pictureID, tl0PicIdx: tl0PicIdx)
                return nil
            } catch {
                return error
            }
        }
        if let failure { return .failure(failure) }
        return .success(copy)
    }

    // MARK: Vectors

    /// VP8 keyframe start: frame tag 0x50 0x42 0x00 (P = 0, show_frame = 1),
    /// start code 9d 01 2a, width 640 (0x0280 LE), height 480 (0x01E0 LE).
    private let keyframeHeader: [UInt8] = [0x50, 0x42, 0x00, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0xE0, 0x01]

    /// X=1 S=1 PID=0 | I=1 | M=0 PictureID=17, then the keyframe header.
    private var keyframe7Bit: [UInt8] { [0x90, 0x80, 0x11] + keyframeHeader }

    @Test func parsesAKeyframeWithA7BitPictureID() throws {
        withDescriptor(keyframe7Bit) { descriptor in
            #expect(descriptor.hasExtension)
            #expect(!descriptor.nonReference)
            #expect(descriptor.startOfPartition)
            #expect(descriptor.partitionIndex == 0)
            #expect(descriptor.pictureID == 17)
            #expect(!descriptor.pictureIDIs15Bit)
            #expect(descriptor.tl0PicIdx == nil)
            #expect(descriptor.temporalLayerIndex == nil)
            #expect(!descriptor.layerSync)
            #expect(descriptor.keyIndex == nil)
            #expect(descriptor.length == 3)
            #expect(Array(descriptor.vp8Payload) == keyframeHeader)
            #expect(descriptor.isKeyframe)
            let size = descriptor.keyframeSize
            #expect(size?.width == 640)
            #expect(size?.height == 480)
        }
        let fields = VP8PayloadDescriptorFields(startOfPartition: true, pictureID: 17)
        #expect(try encode(fields) == [0x90, 0x80, 0x11])
    }

    /// X=1 S=1 PID=0 | I=1 L=1 T=1 K=1 | M=1 PictureID=4711 (0x1267) |
    /// TL0PICIDX=5 | TID=2 Y=1 KEYIDX=3, then a delta frame (P = 1).
    private let delta15Bit: [UInt8] = [0x90, 0xF0, 0x92, 0x67, 0x05, 0xA3, 0x31, 0x01, 0x00, 0x44]

    @Test func parsesADeltaFrameWithEveryOptionalField() throws {
        withDescriptor(delta15Bit) { descriptor in
            #expect(descriptor.pictureID == 4711)
            #expect(descriptor.pictureIDIs15Bit)
            #expect(descriptor.tl0PicIdx == 5)
            #expect(descriptor.temporalLayerIndex == 2)
            #expect(descriptor.layerSync)
            #expect(descriptor.keyIndex == 3)
            #expect(descriptor.length == 6)
            #expect(!descriptor.isKeyframe)
            #expect(descriptor.keyframeSize == nil)
        }
        let fields = VP8PayloadDescriptorFields(
            startOfPartition: true, pictureID: 4711, pictureIDIs15Bit: true, tl0PicIdx: 5, temporalLayerIndex: 2,
            layerSync: true, keyIndex: 3)
        #expect(try encode(fields) == Array(delta15Bit[0..<6]))
    }

    @Test func parsesTheShortestDescriptor() throws {
        // X=0 N=1 S=0 PID=3: a continuation packet of a non-reference frame.
        withDescriptor([0x23, 0xFF]) { descriptor in
            #expect(!descriptor.hasExtension)
            #expect(descriptor.nonReference)
            #expect(!descriptor.startOfPartition)
            #expect(descriptor.partitionIndex == 3)
            #expect(descriptor.pictureID == nil)
            #expect(descriptor.length == 1)
            #expect(!descriptor.isKeyframe)
        }
        #expect(try encode(VP8PayloadDescriptorFields(nonReference: true, partitionIndex: 3)) == [0x23])
    }

    @Test func temporalLayerWithoutKeyIndex() throws {
        // X=1 | T=1 only | TID=1 Y=0 KEYIDX bits set but K=0, so ignored.
        withDescriptor([0x80, 0x20, 0x5F, 0x00]) { descriptor in
            #expect(descriptor.temporalLayerIndex == 1)
            #expect(!descriptor.layerSync)
            #expect(descriptor.keyIndex == nil)
            #expect(descriptor.length == 3)
        }
        // K=1 only: TID and Y are not read (RFC 7741: ignored when T = 0).
        withDescriptor([0x80, 0x10, 0xE7]) { descriptor in
            #expect(descriptor.temporalLayerIndex == nil)
            #expect(!descriptor.layerSync)
            #expect(descriptor.keyIndex == 7)
        }
        #expect(try encode(VP8PayloadDescriptorFields(temporalLayerIndex: 1)) == [0x80, 0x20, 0x40])
        // X=1 with no optional field is 2 bytes.
        #expect(try encode(VP8PayloadDescriptorFields(hasExtension: true)) == [0x80, 0x00])
        withDescriptor([0x80, 0x00]) { #expect($0.length == 2) }
    }

    // MARK: Keyframes

    @Test func keyframeNeedsStartOfPartitionZeroAndPBitClear() {
        withDescriptor([0x10] + keyframeHeader) { #expect($0.isKeyframe) }
        // S=0: a continuation of the keyframe, not its first packet.
        withDescriptor([0x00] + keyframeHeader) { #expect(!$0.isKeyframe) }
        // PID=1: start of the second partition.
        withDescriptor([0x11] + keyframeHeader) { #expect(!$0.isKeyframe) }
        // P=1 in the frame tag.
        withDescriptor([0x10, 0x51] + keyframeHeader.dropFirst()) { #expect(!$0.isKeyframe) }
        // No byte after the descriptor.
        withDescriptor([0x90, 0x80, 0x11]) { descriptor in
            #expect(!descriptor.isKeyframe)
            #expect(descriptor.keyframeSize == nil)
            #expect(descriptor.vp8Payload.isEmpty)
        }
    }

    @Test func keyframeSizeNeedsTenBytesAndTheStartCode() {
        withDescriptor([0x10] + keyframeHeader.dropLast()) { descriptor in
            #expect(descriptor.isKeyframe)
            #expect(descriptor.keyframeSize == nil)
        }
        var badStartCode = keyframeHeader
        badStartCode[4] = 0x02
        withDescriptor([0x10] + badStartCode) { #expect($0.keyframeSize == nil) }
        // The scaling bits (top 2 of each field) are not part of the size.
        var scaled = keyframeHeader
        scaled[7] |= 0xC0  // width 640, scale 3
        scaled[9] |= 0x40  // height 480, scale 1
        withDescriptor([0x10] + scaled) { descriptor in
            #expect(descriptor.keyframeSize?.width == 640)
            #expect(descriptor.keyframeSize?.height == 480)
        }
        // 1280x720 behind a 15-bit picture ID.
        withDescriptor([0x90, 0x80, 0x80, 0x01, 0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x00, 0x05, 0xD0, 0x02]) {
            #expect($0.keyframeSize?.width == 1280)
            #expect($0.keyframeSize?.height == 720)
        }
    }

    // MARK: Refusals

    @Test func refusesTruncatedDescriptors() {
        #expect(parseError([]) == .truncated)
        #expect(parseError([0x80]) == .truncated)  // X=1, no X byte
        #expect(parseError([0x80, 0x80]) == .truncated)  // I=1, no picture ID
        #expect(parseError([0x80, 0x80, 0x81]) == .truncated)  // M=1, one byte of two
        #expect(parseError([0x80, 0x40]) == .truncated)  // L=1, no TL0PICIDX
        #expect(parseError([0x80, 0x20]) == .truncated)  // T=1, no T/K byte
        #expect(parseError([0x80, 0x10]) == .truncated)  // K=1, no T/K byte
        #expect(parseError([0x80, 0xF0, 0x81, 0x00, 0x05]) == .truncated)  // T/K byte missing
        #expect(parseError([0x80, 0xF0, 0x81, 0x00, 0x05, 0x00]) == nil)
        #expect(parseError([0x10]) == nil)
    }

    @Test func writerRefusesValuesThatDoNotFit() {
        func error(_ fields: VP8PayloadDescriptorFields) -> PacketError? {
            var buffer = [UInt8](repeating: 0, count: 8)
            return buffer.withUnsafeMutableBytes { raw -> PacketError? in
                do throws(PacketError) {
                    _ = try fields.write(to: raw)
                    return nil
                } catch {
                    return error
                }
            }
        }
        #expect(error(.init(partitionIndex: 8)) == .valueOutOfRange)
        #expect(error(.init(pictureID: 128)) == .valueOutOfRange)
        #expect(error(.init(pictureID: 127)) == nil)
        #expect(error(.init(pictureID: 0x8000, pictureIDIs15Bit: true)) == .valueOutOfRange)
        #expect(error(.init(temporalLayerIndex: 4)) == .valueOutOfRange)
        #expect(error(.init(layerSync: true)) == .valueOutOfRange)
        #expect(error(.init(keyIndex: 32)) == .valueOutOfRange)

        var small = [UInt8](repeating: 0, count: 5)
        let tooSmall = small.withUnsafeMutableBytes { raw -> PacketError? in
            do throws(PacketError) {
                _ = try VP8PayloadDescriptorFields(pictureID: 1, pictureIDIs15Bit: true, tl0PicIdx: 1, keyIndex: 1)
                    .write(to: raw)
                return nil
            } catch {
                return error
            }
        }
        #expect(tooSmall == .bufferTooSmall)
    }

    // MARK: In-place rewrite

    @Test func rewritesA15BitPictureIDAndTL0PicIdxKeepingTheRest() throws {
        let out = try rewrite(delta15Bit, pictureID: 0x7FFF, tl0PicIdx: 0xFE).get()
        #expect(out == [0x90, 0xF0, 0xFF, 0xFF, 0xFE, 0xA3, 0x31, 0x01, 0x00, 0x44])
        // Values wider than 15 bits wrap: the SFU counts in 16 bits and the
        // field keeps its low 15 (0x8001 -> 1).
        let wrapped = try rewrite(delta15Bit, pictureID: 0x8001, tl0PicIdx: nil).get()
        #expect(Array(wrapped[2...4]) == [0x80, 0x01, 0x05])
    }

    @Test func rewritesA7BitPictureIDMasked() throws {
        let out = try rewrite(keyframe7Bit, pictureID: 200, tl0PicIdx: nil).get()
        #expect(out == [0x90, 0x80, 200 & 0x7F] + keyframeHeader)
        out.withUnsafeBytes { raw in
            #expect((try? VP8PayloadDescriptor(validating: raw))?.pictureID == 72)
        }
    }

    @Test func rewriteOfAnAbsentFieldWritesNothing() {
        // The descriptor has a picture ID but no TL0PICIDX: the picture ID
        // must not be half-written before the refusal.
        #expect(rewrite(keyframe7Bit, pictureID: 5, tl0PicIdx: 9) == .failure(.invalidField))
        #expect(rewrite([0x10, 0x00], pictureID: 5, tl0PicIdx: nil) == .failure(.invalidField))
        #expect(rewrite([0x80, 0x40, 0x01], pictureID: nil, tl0PicIdx: 2) == .success([0x80, 0x40, 0x02]))
        #expect(rewrite([0x80, 0x40], pictureID: nil, tl0PicIdx: 2) == .failure(.truncated))
        #expect(rewrite([0x10, 0x00], pictureID: nil, tl0PicIdx: nil) == .success([0x10, 0x00]))
    }

    // MARK: Properties

    private func randomFields(_ rng: inout SeededGenerator) -> VP8PayloadDescriptorFields {
        let is15Bit = Bool.random(using: &rng)
        let temporalLayerIndex: UInt8? = Bool.random(using: &rng) ? .random(in: 0...3, using: &rng) : nil
        return VP8PayloadDescriptorFields(
            hasExtension: .random(using: &rng), nonReference: .random(using: &rng),
            startOfPartition: .random(using: &rng), partitionIndex: .random(in: 0...7, using: &rng),
            pictureID: Bool.random(using: &rng) ? .random(in: 0...(is15Bit ? 0x7FFF : 0x7F), using: &rng) : nil,
            pictureIDIs15Bit: is15Bit,
            tl0PicIdx: Bool.random(using: &rng) ? .random(in: .min ... .max, using: &rng) : nil,
            temporalLayerIndex: temporalLayerIndex,
            layerSync: temporalLayerIndex != nil && Bool.random(using: &rng),
            keyIndex: Bool.random(using: &rng) ? .random(in: 0...31, using: &rng) : nil)
    }

    @Test func writeThenParseGivesTheSameFields() throws {
        var rng = SeededGenerator(seed: 0x5650_3831)
        for _ in 0..<3000 {
            let fields = randomFields(&rng)
            let tail = rng.bytes(.random(in: 0...12, using: &rng))
            let bytes = try encode(fields) + tail
            withDescriptor(bytes) { descriptor in
                #expect(VP8PayloadDescriptorFields(descriptor) == fields)
                #expect(descriptor.length == fields.encodedSize)
                #expect(Array(descriptor.vp8Payload) == tail)
            }
        }
    }

    @Test func rewriteThenParseGivesTheNewValues() throws {
        var rng = SeededGenerator(seed: 0x5650_3832)
        for _ in 0..<2000 {
            var fields = randomFields(&rng)
            let bytes = try encode(fields) + rng.bytes(4)
            let pictureID: UInt16? = fields.pictureID == nil ? nil : .random(in: .min ... .max, using: &rng)
            let tl0PicIdx: UInt8? = fields.tl0PicIdx == nil ? nil : .random(in: .min ... .max, using: &rng)
            let out = try rewrite(bytes, pictureID: pictureID, tl0PicIdx: tl0PicIdx).get()
            if let pictureID { fields.pictureID = pictureID & (fields.pictureIDIs15Bit ? 0x7FFF : 0x7F) }
            if let tl0PicIdx { fields.tl0PicIdx = tl0PicIdx }
            withDescriptor(out) { #expect(VP8PayloadDescriptorFields($0) == fields) }
            #expect(out[fields.encodedSize...] == bytes[fields.encodedSize...])
        }
    }

    private func touchAll(_ descriptor: VP8PayloadDescriptor) -> Int {
        var sum = descriptor.length &+ Int(descriptor.partitionIndex)
        sum &+= (descriptor.hasExtension ? 1 : 0) &+ (descriptor.nonReference ? 1 : 0)
        sum &+= (descriptor.startOfPartition ? 1 : 0) &+ Int(descriptor.pictureID ?? 0)
        sum &+= (descriptor.pictureIDIs15Bit ? 1 : 0) &+ Int(descriptor.tl0PicIdx ?? 0)
        sum &+= Int(descriptor.temporalLayerIndex ?? 0) &+ (descriptor.layerSync ? 1 : 0)
        sum &+= Int(descriptor.keyIndex ?? 0) &+ descriptor.vp8Payload.count &+ (descriptor.isKeyframe ? 1 : 0)
        if let size = descriptor.keyframeSize { sum &+= Int(size.width) &+ Int(size.height) }
        #expect(descriptor.length <= descriptor.payload.count)
        return sum
    }

    @Test func randomBytesNeverTrap() {
        var rng = SeededGenerator(seed: 0x5650_3833)
        var parsed = 0
        for _ in 0..<20_000 {
            var bytes = rng.bytes(.random(in: 0...20, using: &rng))
            bytes.withUnsafeBytes { raw in
                if let descriptor = try? VP8PayloadDescriptor(validating: raw) {
                    parsed += 1
                    _ = touchAll(descriptor)
                }
            }
            // Rewriting whatever parsed must not trap either.
            _ = bytes.withUnsafeMutableBytes { raw in
                try? VP8PayloadDescriptor.rewrite(raw, pictureID: 1, tl0PicIdx: nil)
            }
        }
        #expect(parsed > 10_000)
    }

    @Test func mutatedValidDescriptorsNeverTrap() throws {
        var rng = SeededGenerator(seed: 0x5650_3834)
        for _ in 0..<2000 {
            let valid = try encode(randomFields(&rng)) + keyframeHeader
            for _ in 0..<10 {
                var bytes = valid
                if Bool.random(using: &rng) {
                    bytes.removeLast(.random(in: 0...bytes.count, using: &rng))
                } else {
                    bytes[.random(in: 0..<bytes.count, using: &rng)] ^= 1 << UInt8.random(in: 0...7, using: &rng)
                }
                bytes.withUnsafeBytes { raw in
                    if let descriptor = try? VP8PayloadDescriptor(validating: raw) { _ = touchAll(descriptor) }
                }
            }
        }
    }
}
