import Packets

/// The transport of one PeerConnection, sans-I/O: ICE (lite or
/// controlling), DTLS and SRTP behind one demux on the shared port.
///
/// Drive it like str0m's `Rtc` (STYLE.md habit 1): give it each received
/// datagram with `receive`, call `handleTimeout` at `nextTimeout`, and after
/// either drain `pollTransmit()` (send each datagram) and `pollEvent()`.
///
/// - Demux by first byte (RFC 7983, `PacketKind`); RTP vs RTCP by the
///   second (RFC 5761 section 4).
/// - DTLS, SRTP and SRTCP are accepted only from addresses ICE validated.
/// - The DTLS client starts its handshake once ICE selects an address
///   (controlling: our check succeeded; lite: the first nomination).
/// - DTLS datagrams go to the selected address, or before a nomination to
///   the latest validated one.
/// - SRTP is keyed when DTLS finishes; `receive` unprotects in place and
///   `protectRTP`/`protectRTCP` protect in place, allocating nothing.
/// - A failure (consent, DTLS, fingerprint) is reported once as
///   `.failed`; after it media is refused (`.notConnected`).
///
/// Not `Sendable`: one media worker thread owns it outright.
public final class PeerTransport {
    public private(set) var localICE: ICECredentials
    public private(set) var remote: RemoteTransportParameters
    public let dtlsRole: DTLSRole
    public private(set) var counters = TransportCounters()
    /// Set once, with the first failure.
    public private(set) var failure: WebRTCError?
    /// The failure came from the ICE agent (see `recoverICE`).
    private var failedInICE = false
    /// The negotiated SRTP profile, once connected.
    public private(set) var srtpProfile: SRTPProfile?

    private let ice: ICEAgent
    private let dtls: DTLSEndpoint
    private var srtp: SRTPContext? { didSet { keyed = srtp.map(Unmanaged.passUnretained) } }
    /// `srtp` unretained, for the per-packet calls: no retain and release
    /// per packet. Sound: `srtp` owns it, and only connecting and closing
    /// replace it, never while a packet is being protected or unprotected
    /// (one thread owns this transport).
    private var keyed: Unmanaged<SRTPContext>?
    private var isClosed = false
    private var events: [TransportEvent] = []
    private var eventsRead = 0

    /// A transport for one PeerConnection. Throws 53407 when OpenSSL cannot
    /// set up the DTLS endpoint.
    public init(certificate: DTLSCertificate, localICE: ICECredentials, remote: RemoteTransportParameters,
                dtlsRole: DTLSRole, iceMode: ICEMode, configuration: PeerTransportConfiguration = .init(),
                now: MediaTime) throws(WebRTCError) {
        self.localICE = localICE
        self.remote = remote
        self.dtlsRole = dtlsRole
        self.ice = ICEAgent(local: localICE, remote: remote.ice, mode: iceMode, configuration: configuration, now: now)
        self.dtls = try DTLSEndpoint(
            certificate: certificate, role: dtlsRole, remoteFingerprintAlgorithm: remote.fingerprintAlgorithm,
            remoteFingerprint: remote.fingerprint, mtu: configuration.mtu, srtpProfiles: configuration.srtpProfiles)
    }

    deinit {
        srtp?.close()
    }

    // MARK: State

    /// Where media goes: the latest nominated address, and the path it was
    /// nominated on.
    public var selectedAddress: STUNAddress? { ice.selectedAddress }
    public var selectedPath: TransportPath? { ice.selected }

    /// SRTP is keyed and nothing has failed or closed.
    public var isConnected: Bool { media != nil }

    /// The SRTP context while media may flow (keyed, nothing failed or
    /// closed), unretained (`keyed`): the one test every protect and
    /// unprotect makes.
    @inline(__always)
    private var media: Unmanaged<SRTPContext>? { failure == nil && !isClosed ? keyed : nil }

    /// Whether `source` passed an authenticated STUN check.
    public func isValidated(_ source: TransportPath) -> Bool { ice.isValidated(source) }

    /// The earliest of ICE's (checks, consent) and DTLS's (retransmission) timers.
    public var nextTimeout: MediaTime? {
        guard failure == nil, !isClosed else { return nil }
        switch (ice.nextTimeout, dtls.nextTimeout) {
        case (let a?, let b?): return min(a, b)
        case (let a?, nil): return a
        case (nil, let b?): return b
        case (nil, nil): return nil
        }
    }

    // MARK: Input

    /// One received datagram, `datagram[0..<length]`, from `source` on the
    /// transport's own socket (stream 0).
    @inline(__always)
    public func receive(_ datagram: UnsafeMutableRawBufferPointer, length: Int, from source: STUNAddress,
                        now: MediaTime) -> TransportReceiveResult {
        receive(datagram, length: length, from: TransportPath(source), now: now)
    }

    /// One received datagram, `datagram[0..<length]`, from `source`. STUN and
    /// DTLS are consumed (answers queued for `pollTransmit`, to the path the
    /// request came on); SRTP/SRTCP is unprotected IN PLACE, the plaintext
    /// then being `datagram[0..<length]` of the result. Anything else is
    /// dropped and counted. Allocates nothing on the SRTP path.
    public func receive(_ datagram: UnsafeMutableRawBufferPointer, length: Int, from source: TransportPath,
                        now: MediaTime) -> TransportReceiveResult {
        counters.datagramsReceived &+= 1
        guard length > 0, length <= datagram.count else { return drop(.malformed) }
        let bytes = UnsafeRawBufferPointer(rebasing: datagram[0..<length])
        switch PeerTransport.classify(bytes) {
        case .rtp:
            guard ice.isValidated(source) else { return drop(.unvalidatedAddress) }
            guard let srtp = media else { return drop(.notConnected) }
            switch srtp._withUnsafeGuaranteedRef({ $0.unprotectRTP(datagram, length: length) }) {
            case .plaintext(let plain):
                counters.rtpReceived &+= 1
                return .rtp(length: plain)
            case .dropped(let reason): return dropSRTP(reason)
            }
        case .rtcp:
            guard ice.isValidated(source) else { return drop(.unvalidatedAddress) }
            guard let srtp = media else { return drop(.notConnected) }
            switch srtp._withUnsafeGuaranteedRef({ $0.unprotectRTCP(datagram, length: length) }) {
            case .plaintext(let plain):
                counters.rtcpReceived &+= 1
                return .rtcp(length: plain)
            case .dropped(let reason): return dropSRTP(reason)
            }
        case .stun:
            guard !isClosed else { return drop(.notConnected) }
            let result = ice.receive(bytes, from: source, now: now)
            collectICEEvents(now: now)
            switch result {
            case .handled:
                counters.stunHandled &+= 1
                return .handled
            case .dropped(let reason): return drop(reason)
            }
        case .dtls:
            guard ice.isValidated(source) else { return drop(.unvalidatedAddress) }
            guard failure == nil, !isClosed, dtls.receive(bytes, now: now) else { return drop(.dtls) }
            counters.dtlsHandled &+= 1
            collectDTLSEvents()
            return .handled
        case .zrtp, .turnChannel, .unknown:
            return drop(.malformed)
        }
    }

    /// `PacketKind(classifying:)` with concrete byte loads: that initializer
    /// reads `Collection.first`, which an unoptimized build calls through a
    /// protocol witness whose coroutine frame is malloc'd, once per packet.
    /// Same RFC 7983 / RFC 5761 table (a test checks all 65536 byte pairs).
    @inline(__always)
    public static func classify(_ bytes: UnsafeRawBufferPointer) -> PacketKind {
        guard bytes.count > 0 else { return .unknown }
        switch bytes.load(fromByteOffset: 0, as: UInt8.self) {
        case 0...3: return .stun
        case 16...19: return .zrtp
        case 20...63: return .dtls
        case 64...79: return .turnChannel
        case 128...191:
            guard bytes.count >= 2 else { return .rtp }
            return (192...223).contains(bytes.load(fromByteOffset: 1, as: UInt8.self)) ? .rtcp : .rtp
        default: return .unknown
        }
    }

    @inline(__always)
    private func drop(_ reason: TransportDropReason) -> TransportReceiveResult {
        counters[dropped: reason] &+= 1
        return .dropped(reason)
    }

    private func dropSRTP(_ reason: SRTPDropReason) -> TransportReceiveResult {
        switch reason {
        case .malformed: drop(.malformed)
        case .authentication: drop(.srtpAuth)
        case .replay: drop(.replay)
        }
    }

    /// Runs the timers due at `now`: ICE checks and consent, DTLS retransmission.
    public func handleTimeout(now: MediaTime) {
        guard failure == nil, !isClosed else { return }
        ice.handleTimeout(now: now)
        collectICEEvents(now: now)
        guard failure == nil else { return }
        dtls.handleTimeout(now: now)
        collectDTLSEvents()
    }

    // MARK: Output

    /// The next datagram to send: STUN first, then DTLS (control path: each
    /// is a fresh array).
    public func pollTransmit() -> (datagram: [UInt8], destination: TransportPath)? {
        if let stun = ice.pollTransmit() { return stun }
        guard let destination = ice.selected ?? ice.lastValidated else { return nil }
        if let record = dtls.pollDatagram() { return (record, destination) }
        return nil
    }

    public func pollEvent() -> TransportEvent? {
        guard eventsRead < events.count else {
            if !events.isEmpty {
                events.removeAll(keepingCapacity: true)
                eventsRead = 0
            }
            return nil
        }
        defer { eventsRead += 1 }
        return events[eventsRead]
    }

    // MARK: Media

    /// Protects the RTP packet `buffer[0..<length]` in place (the buffer
    /// needs `SRTPContext.maximumTrailerLength` spare bytes); returns the
    /// SRTP length, nil when not connected or libsrtp refuses (counted).
    @inline(__always)
    public func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> Int? {
        guard let srtp = media else {
            counters.droppedNotConnected &+= 1
            return nil
        }
        guard let protected = srtp._withUnsafeGuaranteedRef({ $0.protectRTP(buffer, length: length) }) else {
            counters.protectFailures &+= 1
            return nil
        }
        counters.rtpProtected &+= 1
        return protected
    }

    /// As `protectRTP`, for a packet whose first `length` bytes are in
    /// `buffer` and whose rest is `tail`, encrypted straight from there
    /// (`SRTPContext.protectRTP(_:length:appending:)`).
    @inline(__always)
    public func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int, appending tail: UnsafeRawBufferPointer)
        -> Int?
    {
        guard let srtp = media else {
            counters.droppedNotConnected &+= 1
            return nil
        }
        guard let protected = srtp._withUnsafeGuaranteedRef({ $0.protectRTP(buffer, length: length, appending: tail) }) else {
            counters.protectFailures &+= 1
            return nil
        }
        counters.rtpProtected &+= 1
        return protected
    }

    /// As `protectRTP` for a compound RTCP packet.
    @inline(__always)
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) -> Int? {
        guard let srtp = media else {
            counters.droppedNotConnected &+= 1
            return nil
        }
        guard let protected = srtp._withUnsafeGuaranteedRef({ $0.protectRTCP(buffer, length: length) }) else {
            counters.protectFailures &+= 1
            return nil
        }
        counters.rtcpProtected &+= 1
        return protected
    }

    // MARK: Control

    /// An ICE restart (RFC 8445 section 9): new credentials on both sides;
    /// the selected address, DTLS and SRTP keep going. A changed remote
    /// fingerprint is ignored: DTLS is not renegotiated.
    public func restartICE(local: ICECredentials, remote: RemoteTransportParameters) {
        localICE = local
        self.remote.ice = remote.ice
        ice.restart(local: local, remote: remote.ice)
    }

    /// An ICE restart after ICE itself failed (consent expired, no
    /// check answered): DTLS and SRTP are still good, so the transport
    /// comes back with the new credentials instead of a new handshake
    /// (the peer keeps its DTLS session). False when the failure was not
    /// ICE's (DTLS, fingerprint) or there is no SRTP yet: start anew then.
    public func recoverICE(local: ICECredentials, remote: RemoteTransportParameters, now: MediaTime) -> Bool {
        guard failure != nil, failedInICE, srtp != nil, !isClosed else { return false }
        failure = nil
        failedInICE = false
        localICE = local
        self.remote.ice = remote.ice
        ice.revive(local: local, remote: remote.ice, now: now)
        return true
    }

    /// Queues DTLS close_notify (poll it to tell the peer) and frees the
    /// OpenSSL and libsrtp state. Idempotent; `deinit` does it too.
    public func close() {
        guard !isClosed else { return }
        dtls.close()
        srtp?.close()
        srtp = nil
        isClosed = true
    }

    // MARK: Events

    private func collectICEEvents(now: MediaTime) {
        while let event = ice.pollEvent() {
            switch event {
            case .addressValidated(let address):
                events.append(.addressValidated(address))
            case .selected(let address):
                events.append(.selected(address))
                if dtlsRole == .client, !dtls.isStarted {
                    dtls.start(now: now)
                    collectDTLSEvents()
                }
            case .failed(let error):
                if failure == nil { failedInICE = true }
                fail(error)
            }
        }
    }

    private func collectDTLSEvents() {
        while let event = dtls.pollEvent() {
            switch event {
            case .connected(let material):
                do {
                    srtp = try SRTPContext(material: material)
                    srtpProfile = material.profile
                    events.append(.connected(material.profile))
                } catch {
                    fail(error)
                }
            case .failed(let error):
                fail(error)
            case .closedByPeer:
                events.append(.closedByPeer)
                srtp?.close()
                srtp = nil
                isClosed = true
            }
        }
    }

    private func fail(_ error: WebRTCError) {
        guard failure == nil else { return }
        failure = error
        events.append(.failed(error))
    }
}
