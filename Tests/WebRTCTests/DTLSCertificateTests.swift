import COpenSSL
import Testing
@testable import WebRTC

@Suite struct DTLSCertificateTests {
    @Test func fingerprintIsUppercaseSHA256OfTheDER() throws {
        let certificate = TestCertificates.server
        let fingerprint = certificate.fingerprint
        #expect(fingerprint.count == 32 * 3 - 1)
        let groups = fingerprint.split(separator: ":")
        #expect(groups.count == 32)
        #expect(groups.allSatisfy { $0.count == 2 && $0.allSatisfy { "0123456789ABCDEF".contains($0) } })
        // Recompute independently from the DER.
        var der: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(certificate.certificate, &der)
        try #require(length > 0)
        defer { CRYPTO_free(der, #fileID, #line) }
        var digest = [UInt8](repeating: 0, count: 32)
        var digestLength: UInt32 = 0
        #expect(EVP_Digest(der, Int(length), &digest, &digestLength, EVP_sha256(), nil) == 1)
        #expect(DTLSCertificate.formatFingerprint(digest) == fingerprint)
        #expect(certificate.fingerprintAlgorithm == "sha-256")
    }

    @Test func eachGenerationIsAFreshP256Key() throws {
        let a = TestCertificates.server
        let b = TestCertificates.client
        #expect(a.fingerprint != b.fingerprint)
        #expect(EVP_PKEY_get_bits(a.privateKey) == 256)
        #expect(EVP_PKEY_get_base_id(a.privateKey) == EVP_PKEY_EC)
    }

    @Test func formatsFingerprints() {
        #expect(DTLSCertificate.formatFingerprint([0x00, 0xAB, 0x0F]) == "00:AB:0F")
        #expect(DTLSCertificate.formatFingerprint([UInt8]()) == "")
    }
}
