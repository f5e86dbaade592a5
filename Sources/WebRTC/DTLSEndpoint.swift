import Packets
import COpenSSL
import Glibc

/// What a `DTLSEndpoint` reports to its owner.
public enum DTLSEvent: Sendable, Equatable {
    /// The handshake finished, the peer's certificate matches the SDP
    /// fingerprint, and these are the SRTP keys (RFC 5764 section 4.2).
    case connected(SRTPKeyingMaterial)
    /// The handshake failed, timed out, or the fingerprint did not match: 53407.
    case failed(WebRTCError)
    /// The peer sent close_notify (RFC 5246 section 7.2.1): it closed the
    /// PeerConnection.
    case closedByPeer
}

/// One DTLS 1.2 association (RFC 6347) for DTLS-SRTP (RFC 5764), sans-I/O:
/// OpenSSL reads and writes memory BIOs; datagrams, events and a timeout
/// come out through `pollDatagram()`, `pollEvent()` and `nextTimeout`.
///
/// - Both roles (RFC 5763 section 5: `a=setup` decides). The client sends
///   its ClientHello on `start(now:)`.
/// - Handshake messages larger than the MTU are fragmented by OpenSSL and
///   reassembled from fragments in separate datagrams (a Chromium ClientHello
///   is 1413 bytes in 1200 + 263, INTEROP.md).
/// - The write BIO is a byte stream: `flush` splits it into DTLS records
///   (13-byte header, length in bytes 11-12) and packs whole records into
///   datagrams of at most `mtu` bytes.
/// - The peer certificate is accepted during the handshake (it is
///   self-signed) and compared with the SDP fingerprint right after
///   (RFC 8122 section 5); a mismatch fails with 53407.
/// - Retransmission: OpenSSL keeps the timer against its own wall clock
///   (`DTLSv1_get_timeout`); `nextTimeout` maps the remaining time onto the
///   caller's `now`. A `handleTimeout` that comes before OpenSSL's clock
///   agrees does nothing and the deadline is recomputed, so a virtual clock
///   that runs ahead cannot cause a retransmission by itself.
///
/// Not `Sendable`: an `SSL` is used by one thread at a time; the media
/// worker that owns the PeerConnection.
public final class DTLSEndpoint {
    public let role: DTLSRole
    public let mtu: Int
    /// Whether `start` ran (the client sent its ClientHello; a server is
    /// started by the first datagram).
    public private(set) var isStarted = false
    /// Handshake done and the fingerprint verified.
    public private(set) var isConnected = false
    /// Failed or closed: input is refused.
    public private(set) var isFinished = false
    public private(set) var nextTimeout: MediaTime?

    private let certificate: DTLSCertificate  // keeps the SSL_CTX alive
    private let remoteFingerprintAlgorithm: String
    private let remoteFingerprint: String
    /// `SSL *`, owned (it owns both BIOs); nil after `close()`.
    private var ssl: OpaquePointer?
    private let readBIO: OpaquePointer
    private let writeBIO: OpaquePointer
    private var datagrams: [[UInt8]] = []
    private var datagramsRead = 0
    private var events: [DTLSEvent] = []

    /// The smallest MTU OpenSSL accepts (`dtls1_link_min_mtu`).
    public static let minimumMTU = 256

    /// An endpoint for one PeerConnection. `remoteFingerprint` is the SDP's
    /// `a=fingerprint` value ("AB:CD:…", any case) under `remoteFingerprintAlgorithm`
    /// (e.g. "sha-256"). `srtpProfiles` overrides the certificate context's
    /// list (GCM, then CM), most preferred first. Throws 53407 when OpenSSL
    /// cannot create the `SSL`.
    public init(certificate: DTLSCertificate, role: DTLSRole, remoteFingerprintAlgorithm: String,
                remoteFingerprint: String, mtu: Int = 1200,
                srtpProfiles: [SRTPProfile] = SRTPProfile.allCases) throws(WebRTCError) {
        OpenSSLErrorQueue.clear()
        self.role = role
        self.mtu = max(mtu, DTLSEndpoint.minimumMTU)
        self.certificate = certificate
        self.remoteFingerprintAlgorithm = remoteFingerprintAlgorithm.lowercased()
        self.remoteFingerprint = remoteFingerprint.uppercased()
        guard let ssl = SSL_new(certificate.context) else {
            throw .dtlsTransport("SSL_new failed: \(OpenSSLErrorQueue.drain())")
        }
        guard let readBIO = BIO_new(BIO_s_mem()), let writeBIO = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .dtlsTransport("BIO_new failed: \(OpenSSLErrorQueue.drain())")
        }
        // An empty memory BIO must read as "retry", not end of file.
        _ = vroom_BIO_set_mem_eof_return(readBIO, -1)
        _ = vroom_BIO_set_mem_eof_return(writeBIO, -1)
        SSL_set_bio(ssl, readBIO, writeBIO)
        self.ssl = ssl
        self.readBIO = readBIO
        self.writeBIO = writeBIO
        vroom_SSL_set_verify_accept_all(ssl)
        // SSL_OP_NO_QUERY_MTU is set on the context: a memory BIO has no MTU.
        guard vroom_DTLS_set_link_mtu(ssl, self.mtu) == 1 else {
            SSL_free(ssl)
            self.ssl = nil
            throw .dtlsTransport("DTLS_set_link_mtu(\(self.mtu)) failed")
        }
        if srtpProfiles != SRTPProfile.allCases {
            let list = srtpProfiles.map(\.description).joined(separator: ":")
            // Returns 0 on success, like the context's variant.
            guard !srtpProfiles.isEmpty, SSL_set_tlsext_use_srtp(ssl, list) == 0 else {
                SSL_free(ssl)
                self.ssl = nil
                throw .dtlsTransport("SRTP profiles \(list) refused")
            }
        }
        switch role {
        case .client: SSL_set_connect_state(ssl)
        case .server: SSL_set_accept_state(ssl)
        }
    }

    deinit {
        if let ssl { SSL_free(ssl) }
    }

    // MARK: Input

    /// Begins the handshake: a client queues its ClientHello; a server only
    /// marks itself started (it answers the ClientHello when it comes).
    public func start(now: MediaTime) {
        guard !isStarted, !isFinished, ssl != nil else { return }
        isStarted = true
        if role == .client { advance(now: now) }
    }

    /// One received datagram of DTLS records. Returns false when the
    /// endpoint is finished (failed or closed) and refused it. Records
    /// OpenSSL finds bad are discarded inside it (RFC 6347 section 4.1.2.7).
    @discardableResult
    public func receive(_ datagram: UnsafeRawBufferPointer, now: MediaTime) -> Bool {
        guard !isFinished, let ssl, let base = datagram.baseAddress, !datagram.isEmpty,
            datagram.count <= Int(Int32.max)
        else { return false }
        if role == .server { isStarted = true }
        OpenSSLErrorQueue.clear()
        guard BIO_write(readBIO, base, Int32(datagram.count)) == Int32(datagram.count) else {
            return false
        }
        if isConnected {
            readApplicationData(ssl)
        } else {
            advance(now: now)
        }
        // Whatever OpenSSL did not consume (a partial record) is dropped with
        // the datagram: DTLS records never span datagrams.
        _ = BIO_ctrl(readBIO, BIO_CTRL_RESET, 0, nil)
        flush()
        updateTimeout(now: now)
        return true
    }

    /// Retransmits the last flight when its timer expired (RFC 6347 section
    /// 4.2.4); fails with 53407 when OpenSSL gives up.
    public func handleTimeout(now: MediaTime) {
        guard let deadline = nextTimeout, now >= deadline, let ssl, !isFinished else { return }
        OpenSSLErrorQueue.clear()
        if vroom_DTLSv1_handle_timeout(ssl) < 0 {
            fail("DTLS handshake timed out: \(OpenSSLErrorQueue.drain())")
            return
        }
        flush()
        updateTimeout(now: now)
    }

    // MARK: Output

    /// The next datagram to send to the peer (control path: allocates).
    public func pollDatagram() -> [UInt8]? {
        guard datagramsRead < datagrams.count else {
            if !datagrams.isEmpty {
                datagrams.removeAll(keepingCapacity: true)
                datagramsRead = 0
            }
            return nil
        }
        defer { datagramsRead += 1 }
        return datagrams[datagramsRead]
    }

    public func pollEvent() -> DTLSEvent? {
        events.isEmpty ? nil : events.removeFirst()
    }

    /// Sends close_notify when connected (queued: poll it), then frees the
    /// OpenSSL state. Idempotent.
    public func close() {
        guard let ssl else { return }
        if isConnected, !isFinished {
            OpenSSLErrorQueue.clear()
            _ = SSL_shutdown(ssl)
            flush()
        }
        OpenSSLErrorQueue.clear()
        SSL_free(ssl)
        self.ssl = nil
        isFinished = true
        nextTimeout = nil
    }

    // MARK: Driving OpenSSL

    private func advance(now: MediaTime) {
        guard let ssl, !isConnected, !isFinished else { return }
        let result = SSL_do_handshake(ssl)
        // Whatever the outcome, OpenSSL may have written a flight or an alert.
        flush()
        if result == 1 {
            finishHandshake(ssl)
            // Records behind Finished in the same datagram (rare): read them.
            if isConnected { readApplicationData(ssl) }
        } else {
            let error = SSL_get_error(ssl, result)
            if error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE {
                fail("DTLS handshake failed (SSL error \(error)): \(OpenSSLErrorQueue.drain())")
            }
        }
        updateTimeout(now: now)
    }

    /// Verifies the fingerprint and exports the SRTP keys.
    private func finishHandshake(_ ssl: OpaquePointer) {
        guard let peer = SSL_get1_peer_certificate(ssl) else {
            fail("the peer sent no certificate")
            return
        }
        let actual = DTLSCertificate.fingerprint(of: peer, algorithm: remoteFingerprintAlgorithm)
        X509_free(peer)
        guard let actual else {
            fail("unsupported fingerprint algorithm \(remoteFingerprintAlgorithm)")
            return
        }
        guard actual == remoteFingerprint else {
            fail("the peer's certificate does not match the SDP fingerprint")
            return
        }
        guard let selected = SSL_get_selected_srtp_profile(ssl),
            let profile = SRTPProfile(protectionProfileID: UInt16(truncatingIfNeeded: selected.pointee.id))
        else {
            fail("no SRTP profile negotiated (use_srtp)")
            return
        }
        let keyLength = profile.keyLength
        let saltLength = profile.saltLength
        var exported = [UInt8](repeating: 0, count: 2 * (keyLength + saltLength))
        let label = "EXTRACTOR-dtls_srtp"  // RFC 5764 section 4.2
        let ok = exported.withUnsafeMutableBufferPointer { out in
            SSL_export_keying_material(ssl, out.baseAddress, out.count, label, label.utf8.count, nil, 0, 0) == 1
        }
        guard ok else {
            fail("SRTP key export failed: \(OpenSSLErrorQueue.drain())")
            return
        }
        // RFC 5764 section 4.2: client key, server key, client salt, server salt.
        let clientKey = exported[0..<keyLength] + exported[(2 * keyLength)..<(2 * keyLength + saltLength)]
        let serverKey = exported[keyLength..<(2 * keyLength)] + exported[(2 * keyLength + saltLength)...]
        let material = role == .client
            ? SRTPKeyingMaterial(profile: profile, local: Array(clientKey), remote: Array(serverKey))
            : SRTPKeyingMaterial(profile: profile, local: Array(serverKey), remote: Array(clientKey))
        isConnected = true
        events.append(.connected(material))
    }

    /// Reads (and discards: no data channels) application data after the
    /// handshake, so that alerts and retransmitted flights are processed.
    private func readApplicationData(_ ssl: OpaquePointer) {
        withUnsafeTemporaryAllocation(byteCount: 2048, alignment: 8) { scratch in
            while true {
                let result = SSL_read(ssl, scratch.baseAddress, Int32(scratch.count))
                if result > 0 { continue }
                let error = SSL_get_error(ssl, result)
                if error == SSL_ERROR_ZERO_RETURN {
                    isFinished = true
                    nextTimeout = nil
                    events.append(.closedByPeer)
                } else if error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE {
                    // A bad record after the handshake is not fatal to SRTP.
                    OpenSSLErrorQueue.clear()
                }
                return
            }
        }
    }

    private func fail(_ message: String) {
        guard !isFinished else { return }
        isFinished = true
        nextTimeout = nil
        events.append(.failed(.dtlsTransport(message)))
    }

    private func updateTimeout(now: MediaTime) {
        guard let ssl, !isFinished, !isConnected else {
            nextTimeout = nil
            return
        }
        var remaining = timeval()
        if vroom_DTLSv1_get_timeout(ssl, &remaining) == 1 {
            let ns = UInt64(max(0, remaining.tv_sec)) * 1_000_000_000 + UInt64(max(0, remaining.tv_usec)) * 1_000
            nextTimeout = now.adding(nanoseconds: ns)
        } else {
            nextTimeout = nil
        }
    }

    /// Moves OpenSSL's output into datagrams: whole records, packed up to the MTU.
    private func flush() {
        let pending = vroom_BIO_pending(writeBIO)
        guard pending > 0 else { return }
        var stream = [UInt8](repeating: 0, count: pending)
        let read = stream.withUnsafeMutableBytes { BIO_read(writeBIO, $0.baseAddress, Int32($0.count)) }
        guard read > 0 else { return }
        DTLSRecordPacker.pack(stream.prefix(Int(read)), mtu: mtu) { datagrams.append($0) }
    }
}
