import COpenSSL
import Testing

/// `vroom_gcm_seal` and `vroom_gcm_open` (the COpenSSL shim's AES-128-GCM
/// through OpenSSL's GCM128 mode code over an ECB context, used by SRTP's
/// AEAD_AES_128_GCM) against OpenSSL's own EVP AES-128-GCM: the same
/// ciphertext and tag over the counter function's 1,536-byte chunk edges,
/// splits between the seal's two runs at and around the block and chunk
/// edges, and AAD in one or two parts (across block edges, as SRTP's and
/// SRTCP's headers fall); tags and AAD that do not match are refused, and a
/// failing ECB context fails the seal, the open and the context itself.
@Suite struct AESGCMShimTests {
    static let key: [UInt8] = (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 41 &+ 3) }
    static let iv: [UInt8] = (0..<12).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 5) }
    static let aad: [UInt8] = (0..<12).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 128) }
    static let aad2: [UInt8] = [0x80, 0, 0x05, 0xd4]

    /// `count` bytes in a fixed pattern that repeats only after 2^32 bytes,
    /// so a failing case is the same on every run.
    static func input(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: (UInt64($0) &* 2_654_435_761) >> 13) }
    }

    /// EVP's AES-128-GCM of `input` with `aad`: ciphertext, then the tag.
    static func reference(_ input: [UInt8], aad: [UInt8]) throws -> (ciphertext: [UInt8], tag: [UInt8]) {
        let context = try #require(EVP_CIPHER_CTX_new())
        defer { EVP_CIPHER_CTX_free(context) }
        var written: Int32 = 0
        #expect(EVP_EncryptInit_ex(context, EVP_aes_128_gcm(), nil, nil, nil) == 1)
        #expect(EVP_CIPHER_CTX_ctrl(context, vroom_EVP_CTRL_GCM_SET_IVLEN(), 12, nil) == 1)
        #expect(EVP_EncryptInit_ex(context, nil, nil, key, iv) == 1)
        if !aad.isEmpty { #expect(EVP_EncryptUpdate(context, nil, &written, aad, Int32(aad.count)) == 1) }
        var output = [UInt8](repeating: 0, count: input.count)
        if !input.isEmpty { #expect(EVP_EncryptUpdate(context, &output, &written, input, Int32(input.count)) == 1) }
        var tag = [UInt8](repeating: 0, count: 16)
        #expect(EVP_EncryptFinal_ex(context, &tag, &written) == 1)
        #expect(EVP_CIPHER_CTX_ctrl(context, vroom_EVP_CTRL_GCM_GET_TAG(), 16, &tag) == 1)
        return (output, tag)
    }

    /// The shim's key and GCM128 context; `release` frees both.
    final class Keyed {
        let key: UnsafeMutablePointer<vroom_gcm_key>
        let gcm: OpaquePointer

        init() throws {
            let ecb = try #require(EVP_CIPHER_CTX_new())
            #expect(EVP_EncryptInit_ex(ecb, EVP_aes_128_ecb(), nil, AESGCMShimTests.key, nil) == 1)
            #expect(EVP_CIPHER_CTX_set_padding(ecb, 0) == 1)
            key = .allocate(capacity: 1)
            key.initialize(to: vroom_gcm_key(ecb: ecb, failed: 0))
            gcm = try #require(vroom_gcm_new(key))
        }

        deinit {
            CRYPTO_gcm128_release(gcm)
            EVP_CIPHER_CTX_free(key.pointee.ecb)
            key.deallocate()
        }

        /// Seals `input` split at `split` (the first run out of place, the
        /// second in place) with the AAD in one part or two.
        func seal(_ input: [UInt8], split: Int, aad: [UInt8], aad2: [UInt8]) -> (ok: Int32, sealed: [UInt8], tag: [UInt8]) {
            var first = [UInt8](repeating: 0, count: split)
            var second = Array(input[split...])
            var tag = [UInt8](repeating: 0, count: 16)
            let ok = input.withUnsafeBufferPointer { source in
                first.withUnsafeMutableBufferPointer { firstOut in
                    second.withUnsafeMutableBufferPointer { secondInOut in
                        vroom_gcm_seal(
                            gcm, key, AESGCMShimTests.iv, aad, aad.count, aad2, aad2.count,
                            source.baseAddress, firstOut.baseAddress, split,
                            secondInOut.baseAddress, secondInOut.baseAddress, input.count - split, &tag)
                    }
                }
            }
            return (ok, first + second, tag)
        }

        /// Opens `sealed` in place; returns the shim's verdict and the bytes.
        func open(_ sealed: [UInt8], tag: [UInt8], aad: [UInt8], aad2: [UInt8]) -> (ok: Int32, opened: [UInt8]) {
            var data = sealed
            let ok = data.withUnsafeMutableBufferPointer {
                vroom_gcm_open(gcm, key, AESGCMShimTests.iv, aad, aad.count, aad2, aad2.count, $0.baseAddress, sealed.count, tag)
            }
            return (ok, data)
        }
    }

    @Test(arguments: [0, 1, 15, 16, 17, 100, 1_535, 1_536, 1_537, 3_071, 3_072, 3_073, 5_000])
    func matchesEVPAtEverySplitAndOpensWhatItSeals(total: Int) throws {
        let keyed = try Keyed()
        let input = Self.input(total)
        let header = Self.input(36).map { $0 ^ 0x5a }
        // One context for every packet, as SRTP uses it: each seal and open
        // starts from its own IV. AAD: an RTP header (12), SRTCP's 8 + 4,
        // none, one and two whole blocks, and two parts across a block edge
        // (14 + 4, 30 + 4: unencrypted SRTCP's whole packet, then E + index).
        let aads: [([UInt8], [UInt8])] = [
            (Self.aad, []), (Array(Self.aad[..<8]), Self.aad2), ([], []), (Array(header[..<16]), []),
            (Array(header[..<32]), []), (Array(header[..<14]), Self.aad2), (Array(header[..<30]), Self.aad2),
        ]
        for (aad, aad2) in aads {
            let expected = try Self.reference(input, aad: aad + aad2)
            let splits = Set([0, 1, 15, 16, 17, 1_535, 1_536, 1_537, 3_072, total - 1, total].filter { (0...total).contains($0) })
            for split in splits.sorted() {
                let (ok, sealed, tag) = keyed.seal(input, split: split, aad: aad, aad2: aad2)
                #expect(ok == 1, "total \(total), split \(split)")
                #expect(sealed == expected.ciphertext, "total \(total), split \(split), aad \(aad.count)+\(aad2.count)")
                #expect(tag == expected.tag, "total \(total), split \(split), aad \(aad.count)+\(aad2.count)")
            }
            let (ok, opened) = keyed.open(expected.ciphertext, tag: expected.tag, aad: aad, aad2: aad2)
            #expect(ok == 1, "total \(total)")
            #expect(opened == input, "total \(total)")
        }
    }

    @Test func refusesATagOrAADThatDoesNotMatch() throws {
        let keyed = try Keyed()
        let input = Self.input(100)
        let (ok, sealed, tag) = keyed.seal(input, split: 0, aad: Self.aad, aad2: [])
        #expect(ok == 1)
        for byte in [0, 15] {
            var wrong = tag
            wrong[byte] ^= 0x01
            #expect(keyed.open(sealed, tag: wrong, aad: Self.aad, aad2: []).ok == 0, "tag byte \(byte)")
        }
        var wrongAAD = Self.aad
        wrongAAD[3] ^= 0x80
        #expect(keyed.open(sealed, tag: tag, aad: wrongAAD, aad2: []).ok == 0)
        var wrongCiphertext = sealed
        wrongCiphertext[99] ^= 0x01
        #expect(keyed.open(wrongCiphertext, tag: tag, aad: Self.aad, aad2: []).ok == 0)
        // The context is not left in a failed state.
        let again = keyed.open(sealed, tag: tag, aad: Self.aad, aad2: [])
        #expect(again.ok == 1)
        #expect(again.opened == input)
    }

    @Test func aFailingECBContextFailsTheContextTheSealAndTheOpen() throws {
        let keyed = try Keyed()
        let input = Self.input(100)
        let good = keyed.seal(input, split: 40, aad: Self.aad, aad2: [])
        #expect(good.ok == 1)
        // A context that was never given a cipher: every EVP_EncryptUpdate fails.
        let broken = try #require(EVP_CIPHER_CTX_new())
        defer { EVP_CIPHER_CTX_free(broken) }
        let working = keyed.key.pointee.ecb
        keyed.key.pointee.ecb = broken
        defer { keyed.key.pointee.ecb = working }
        let failed = keyed.seal(input, split: 40, aad: Self.aad, aad2: [])
        #expect(failed.ok == 0)
        // The packet's first ECB call (for E(k, J0)) fails: the in-place
        // run's plaintext is cleansed, and no tag is written.
        #expect(failed.sealed == [UInt8](repeating: 0, count: 100))
        #expect(failed.tag == [UInt8](repeating: 0, count: 16))
        #expect(keyed.open(good.sealed, tag: good.tag, aad: Self.aad, aad2: []).ok == 0)
        // A new context over it would have a zero hash key: refused.
        #expect(vroom_gcm_new(keyed.key) == nil)
        keyed.key.pointee.ecb = working
        #expect(keyed.open(good.sealed, tag: good.tag, aad: Self.aad, aad2: []).ok == 1)
    }

    /// GCM's counter is the last 32 bits, mod 2^32 (inc32): the word before
    /// it never takes a carry.
    @Test func counterFunctionWrapsItsLast32Bits() throws {
        let keyed = try Keyed()
        let ivec: [UInt8] = Array(Self.iv) + [0xFF, 0xFF, 0xFF, 0xFE]
        let input = (0..<48).map { UInt8(truncatingIfNeeded: $0 &* 5) }
        var output = [UInt8](repeating: 0, count: 48)
        vroom_gcm_ctr32(input, &output, 3, keyed.key, ivec)
        #expect(keyed.key.pointee.failed == 0)
        let counters: [[UInt8]] = [[0xFF, 0xFF, 0xFF, 0xFE], [0xFF, 0xFF, 0xFF, 0xFF], [0, 0, 0, 0]]
        let blocks = counters.flatMap { Array(Self.iv) + $0 }
        var keystream = [UInt8](repeating: 0, count: 48)
        var written: Int32 = 0
        #expect(EVP_EncryptUpdate(keyed.key.pointee.ecb, &keystream, &written, blocks, 48) == 1)
        #expect(output == zip(input, keystream).map { $0 ^ $1 })
    }
}
