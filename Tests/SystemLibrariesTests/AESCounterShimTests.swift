import COpenSSL
import Testing

/// `vroom_aes_ctr_xor` (the COpenSSL shim's counter mode over an ECB
/// context, used by SRTP's AES-CM) against OpenSSL's own AES-128-CTR, over
/// the shim's 1,536-byte chunk edges and every kind of split between its
/// two runs.
@Suite struct AESCounterShimTests {
    static let key: [UInt8] = (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
    /// Salt-like bytes, the last two zero (SRTP's block counter).
    static let iv: [UInt8] = (0..<14).map { UInt8(truncatingIfNeeded: $0 &* 53 &+ 7) } + [0, 0]

    /// OpenSSL's AES-128-CTR of `input` from `iv`.
    static func reference(_ input: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        let context = try #require(EVP_CIPHER_CTX_new())
        defer { EVP_CIPHER_CTX_free(context) }
        #expect(EVP_EncryptInit_ex(context, EVP_aes_128_ctr(), nil, key, iv) == 1)
        var output = [UInt8](repeating: 0, count: input.count)
        var written: Int32 = 0
        if !input.isEmpty {
            #expect(EVP_EncryptUpdate(context, &output, &written, input, Int32(input.count)) == 1)
        }
        return output
    }

    static func ecbContext() throws -> OpaquePointer {
        let context = try #require(EVP_CIPHER_CTX_new())
        #expect(EVP_EncryptInit_ex(context, EVP_aes_128_ecb(), nil, key, nil) == 1)
        #expect(EVP_CIPHER_CTX_set_padding(context, 0) == 1)
        return context
    }

    @Test(arguments: [0, 1, 15, 16, 17, 1_535, 1_536, 1_537, 3_071, 3_072, 3_073, 5_000])
    func matchesOpenSSLsCounterModeAtEverySplit(total: Int) throws {
        let ecb = try Self.ecbContext()
        defer { EVP_CIPHER_CTX_free(ecb) }
        let input = AESGCMShimTests.input(total)
        let expected = try Self.reference(input, iv: Self.iv)
        let splits = Set([0, 1, 15, 16, 17, 1_535, 1_536, 1_537, 3_072, total - 1, total].filter { (0...total).contains($0) })
        for split in splits.sorted() {
            // The first run out of place, the second in place (as SRTP's
            // protect: the slot's head, then the payload appended from
            // elsewhere, or the whole packet in place).
            var first = [UInt8](repeating: 0, count: split)
            var second = Array(input[split...])
            let ok = input.withUnsafeBufferPointer { source in
                first.withUnsafeMutableBufferPointer { firstOut in
                    second.withUnsafeMutableBufferPointer { secondInOut in
                        vroom_aes_ctr_xor(
                            ecb, Self.iv, source.baseAddress, firstOut.baseAddress, split,
                            secondInOut.baseAddress, secondInOut.baseAddress, total - split)
                    }
                }
            }
            #expect(ok == 1, "total \(total), split \(split)")
            #expect(first + second == expected, "total \(total), split \(split)")
        }
    }

    @Test func refusesAnIVWithoutRoomForTheCounterAndTooManyBlocks() throws {
        let ecb = try Self.ecbContext()
        defer { EVP_CIPHER_CTX_free(ecb) }
        let input = [UInt8](repeating: 0, count: 32)
        var output = [UInt8](repeating: 0, count: 32)
        var iv = Self.iv
        iv[15] = 1
        #expect(vroom_aes_ctr_xor(ecb, iv, input, &output, 32, nil, nil, 0) == 0)
        // 2^16 blocks is the limit; one byte more is refused before any work.
        #expect(vroom_aes_ctr_xor(ecb, Self.iv, input, &output, 0, nil, nil, 65_536 * 16 + 1) == 0)
        #expect(vroom_aes_ctr_xor(ecb, Self.iv, input, &output, 32, nil, nil, 0) == 1)
    }
}
