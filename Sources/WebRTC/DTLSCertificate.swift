import COpenSSL

/// The server's DTLS identity (RFC 5763 section 5): a self-signed ECDSA P-256
/// certificate and its key, generated once per process, and its SHA-256
/// fingerprint for `a=fingerprint:sha-256` in every SDP.
///
/// It also holds the one `SSL_CTX` all `DTLSEndpoint`s create their `SSL`
/// from: building a context costs OpenSSL 3.0 provider look-ups (hundreds of
/// microseconds), a per-process context costs them once.
///
/// `@unchecked Sendable`: every field is written once in `generate()` and
/// never again; OpenSSL documents a configured `SSL_CTX` as safe to share
/// between threads for `SSL_new` (it is reference-counted with atomics), and
/// the `X509`/`EVP_PKEY` are only read after that.
public final class DTLSCertificate: @unchecked Sendable {
    /// `X509 *`, owned.
    let certificate: OpaquePointer
    /// `EVP_PKEY *`, owned.
    let privateKey: OpaquePointer
    /// `SSL_CTX *`, owned: DTLS 1.2, this certificate, use_srtp, accept-all
    /// verification (the fingerprint is checked after the handshake).
    let context: OpaquePointer
    /// SHA-256 of the certificate's DER, "AB:CD:…" (95 characters).
    public let fingerprint: String
    /// The hash function of `fingerprint`, as SDP names it.
    public let fingerprintAlgorithm = "sha-256"

    /// The SRTP profiles offered or accepted, in preference order: a server
    /// picks by its own order, and AES-GCM costs a quarter of AES-CM with
    /// HMAC-SHA1 on Debian's NSS-based libsrtp2 (C-LIBRARIES.md: 0.9 vs 4.3 us
    /// per 1200-byte packet).
    static let srtpProfileList = "SRTP_AEAD_AES_128_GCM:SRTP_AES128_CM_SHA1_80"

    private init(certificate: OpaquePointer, privateKey: OpaquePointer, context: OpaquePointer, fingerprint: String) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.context = context
        self.fingerprint = fingerprint
    }

    deinit {
        SSL_CTX_free(context)
        X509_free(certificate)
        EVP_PKEY_free(privateKey)
    }

    /// A fresh key pair and certificate (CN "vroom", valid from a day ago for
    /// 30 days like libwebrtc's, random 64-bit serial). Call once at process
    /// start and share the result; throws 53407 when OpenSSL fails.
    public static func generate() throws(WebRTCError) -> DTLSCertificate {
        OpenSSLErrorQueue.clear()
        func failure(_ step: String) -> WebRTCError {
            .dtlsTransport("certificate generation failed at \(step): \(OpenSSLErrorQueue.drain())")
        }
        guard let key = vroom_EVP_EC_gen_p256() else { throw failure("EVP_EC_gen") }
        guard let x509 = X509_new() else {
            EVP_PKEY_free(key)
            throw failure("X509_new")
        }
        var ok = X509_set_version(x509, 2) == 1  // X.509 v3
        var serial: UInt64 = 0
        withUnsafeMutableBytes(of: &serial) { _ = RAND_bytes($0.baseAddress?.assumingMemoryBound(to: UInt8.self), 8) }
        ok = ok && ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), serial >> 1) == 1
        ok = ok && X509_gmtime_adj(X509_getm_notBefore(x509), -86_400) != nil
        ok = ok && X509_gmtime_adj(X509_getm_notAfter(x509), 30 * 86_400) != nil
        ok = ok && X509_set_pubkey(x509, key) == 1
        if ok, let name = X509_get_subject_name(x509) {
            ok = X509_NAME_add_entry_by_txt(name, "CN", vroom_MBSTRING_ASC(), "vroom", -1, -1, 0) == 1
            ok = ok && X509_set_issuer_name(x509, name) == 1
        } else {
            ok = false
        }
        ok = ok && X509_sign(x509, key, EVP_sha256()) > 0
        guard ok, let fingerprint = DTLSCertificate.fingerprint(of: x509, algorithm: "sha-256") else {
            X509_free(x509)
            EVP_PKEY_free(key)
            throw failure("X509 setup")
        }
        guard let context = makeContext(certificate: x509, key: key) else {
            X509_free(x509)
            EVP_PKEY_free(key)
            throw failure("SSL_CTX setup")
        }
        return DTLSCertificate(certificate: x509, privateKey: key, context: context, fingerprint: fingerprint)
    }

    /// The DTLS context every endpoint shares.
    private static func makeContext(certificate: OpaquePointer, key: OpaquePointer) -> OpaquePointer? {
        guard let context = SSL_CTX_new(DTLS_method()) else { return nil }
        var ok = SSL_CTX_use_certificate(context, certificate) == 1
        ok = ok && SSL_CTX_use_PrivateKey(context, key) == 1
        ok = ok && SSL_CTX_check_private_key(context) == 1
        // OpenSSL 3.0 speaks no DTLS 1.3; pin 1.2 so a future library does not
        // change the key export or record layer under us.
        ok = ok && vroom_SSL_CTX_set_min_proto_version(context, vroom_DTLS1_2_VERSION()) == 1
        ok = ok && vroom_SSL_CTX_set_max_proto_version(context, vroom_DTLS1_2_VERSION()) == 1
        // Returns 0 on success, unlike its neighbours (C-LIBRARIES.md).
        ok = ok && SSL_CTX_set_tlsext_use_srtp(context, srtpProfileList) == 0
        // A memory BIO cannot report a path MTU; DTLSEndpoint sets it.
        _ = SSL_CTX_set_options(context, vroom_SSL_OP_NO_QUERY_MTU() | vroom_SSL_OP_NO_TICKET())
        _ = vroom_SSL_CTX_set_read_ahead(context, 1)
        guard ok else {
            SSL_CTX_free(context)
            return nil
        }
        return context
    }

    /// The digest of `x509`'s DER as "AB:CD:…"; nil for an unknown
    /// algorithm. Algorithms as SDP names them (RFC 8122 section 5):
    /// sha-1, sha-224, sha-256, sha-384, sha-512.
    static func fingerprint(of x509: OpaquePointer, algorithm: String) -> String? {
        let digest: OpaquePointer?
        switch algorithm.lowercased() {
        case "sha-1": digest = EVP_sha1()
        case "sha-224": digest = EVP_sha224()
        case "sha-256": digest = EVP_sha256()
        case "sha-384": digest = EVP_sha384()
        case "sha-512": digest = EVP_sha512()
        default: return nil
        }
        var bytes = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        guard X509_digest(x509, digest, &bytes, &length) == 1 else { return nil }
        return formatFingerprint(bytes.prefix(Int(length)))
    }

    /// "AB:CD:…", uppercase hex pairs joined by colons (RFC 8122 section 5).
    static func formatFingerprint<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 3)
        for byte in bytes {
            if !text.isEmpty { text.append(UInt8(ascii: ":")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
