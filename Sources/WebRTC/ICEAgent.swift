import Packets

/// What an `ICEAgent` reports.
public enum ICEEvent: Sendable, Equatable {
    case addressValidated(TransportPath)
    case selected(TransportPath)
    /// 53405: consent expired, or (controlling) no check succeeded in time.
    case failed(WebRTCError)
}

/// The outcome of one STUN message.
public enum ICEReceiveResult: Sendable, Hashable {
    case handled
    case dropped(TransportDropReason)
}

/// The ICE side of one PeerConnection, sans-I/O: STUN messages in, STUN
/// datagrams, events and a timeout out.
///
/// Lite (RFC 8445 section 2.5), the server's mode:
/// - answers Binding requests whose USERNAME is "localUfrag:remoteUfrag"
///   (section 7.2.2) and whose MESSAGE-INTEGRITY verifies under the local
///   password; a FINGERPRINT, when present, must verify too. The success
///   response carries XOR-MAPPED-ADDRESS, MESSAGE-INTEGRITY (local password)
///   and FINGERPRINT (section 7.3.1.5).
/// - A request that fails these checks is dropped and counted, with no
///   response: a 401 would let anyone who spoofs a source address make us
///   send to it, and a real peer with the right credentials never needs it.
/// - Every source of an authenticated check is "validated"; the selected
///   path is the source of the latest authenticated check with
///   USE-CANDIDATE (Chromium nominates a second pair ~250 ms later:
///   INTEROP.md; follow it). A source is an address and the path it came
///   on (`TransportPath`): the same address over UDP and over an ICE-TCP
///   connection are validated and selected apart.
/// - Consent (RFC 7675): after selection, `consentTimeout` (30 s) without
///   an authenticated check fails the agent with 53405.
///
/// Controlling (tests, the client SDK): sends a check with USE-CANDIDATE,
/// PRIORITY and ICE-CONTROLLING to the one remote address every 50 ms until
/// a success response authenticated with the remote password, then one
/// every 5 s; consent expires `consentTimeout` after the last success, and
/// the agent fails if no check succeeds within `consentTimeout` of starting.
///
/// Not `Sendable`: owned by one media worker thread.
public final class ICEAgent {
    public private(set) var local: ICECredentials
    public private(set) var remote: ICECredentials
    public let mode: ICEMode
    /// Where media goes; nil until the first nomination.
    public private(set) var selected: TransportPath?
    public var selectedAddress: STUNAddress? { selected?.address }
    public private(set) var isFailed = false
    /// The latest validated address (the fallback destination for DTLS
    /// before a nomination: Chromium starts DTLS on a pair it has not
    /// nominated yet).
    public private(set) var lastValidated: TransportPath?

    private var validated: Set<TransportPath> = []
    /// USERNAME we accept in requests: "local:remote".
    private var expectedUsername: String
    /// USERNAME we send in checks: "remote:local".
    private var outgoingUsername: String
    private let consentTimeout: UInt64
    private let checkInterval: UInt64
    private let consentCheckInterval: UInt64
    private var startedAt: MediaTime
    /// The last authenticated check (lite) or success (controlling).
    private var lastConsent: MediaTime?
    private var nextCheck: MediaTime?
    private var pendingChecks: [(id: STUNTransactionID, sentAt: MediaTime)] = []
    private let tieBreaker: UInt64
    private var transmits: [(datagram: [UInt8], destination: TransportPath)] = []
    private var transmitsRead = 0
    private var events: [ICEEvent] = []

    /// RFC 8445 section 5.1.2.1 for a host candidate, component 1:
    /// (2^24)*126 + (2^8)*65535 + (256 - 1).
    static let hostPriority: UInt32 = 2_130_706_431
    /// A STUN response is under 100 bytes (20 header + 12 XOR-MAPPED-ADDRESS
    /// IPv4/24 IPv6 + 24 MESSAGE-INTEGRITY + 8 FINGERPRINT); a check with a
    /// 509-byte USERNAME at most ~600.
    static let messageCapacity = 1024
    /// Unanswered checks remembered for matching responses: 30 s of 5 s
    /// consent checks plus a burst of 50 ms ones fit.
    static let pendingLimit = 32

    public init(local: ICECredentials, remote: ICECredentials, mode: ICEMode,
                configuration: PeerTransportConfiguration = .init(), now: MediaTime) {
        self.local = local
        self.remote = remote
        self.mode = mode
        self.expectedUsername = local.ufrag + ":" + remote.ufrag
        self.outgoingUsername = remote.ufrag + ":" + local.ufrag
        self.consentTimeout = configuration.consentTimeout.mediaNanoseconds
        self.checkInterval = max(1, configuration.checkInterval.mediaNanoseconds)
        self.consentCheckInterval = max(1, configuration.consentCheckInterval.mediaNanoseconds)
        self.startedAt = now
        var random = SystemRandomNumberGenerator()
        self.tieBreaker = random.next()
        if case .controlling = mode { nextCheck = now }
    }

    /// Whether an authenticated check came from `source`. Cheap for the
    /// packet path: two comparisons before a hash look-up.
    @inline(__always)
    public func isValidated(_ source: TransportPath) -> Bool {
        source == selected || source == lastValidated || validated.contains(source)
    }

    /// New credentials after an ICE restart (RFC 8445 section 9). Validated
    /// and selected addresses stay until the peer's new checks move them;
    /// media keeps flowing meanwhile.
    public func restart(local: ICECredentials, remote: ICECredentials) {
        self.local = local
        self.remote = remote
        expectedUsername = local.ufrag + ":" + remote.ufrag
        outgoingUsername = remote.ufrag + ":" + local.ufrag
        pendingChecks.removeAll()
        if case .controlling = mode, !isFailed { nextCheck = MediaTime(nanoseconds: 0) }
    }

    /// Brings a failed controlling agent back for an ICE restart (new
    /// credentials on both sides): the consent and nomination clocks start
    /// again at `now`, checks go out at once.
    public func revive(local: ICECredentials, remote: ICECredentials, now: MediaTime) {
        isFailed = false
        startedAt = now
        // Nominate again: checks every `checkInterval` until one succeeds,
        // which reports `.selected` (the path may have changed).
        selected = nil
        lastConsent = nil
        restart(local: local, remote: remote)
        if case .controlling = mode { nextCheck = MediaTime(nanoseconds: 0) }
    }

    // MARK: Input

    /// One STUN message (`PacketKind.stun`) from `source`.
    public func receive(_ bytes: UnsafeRawBufferPointer, from source: TransportPath, now: MediaTime) -> ICEReceiveResult {
        guard !isFailed else { return .dropped(.notConnected) }
        guard let message = try? STUNMessageView(validating: bytes), message.messageType.method == .binding else {
            return .dropped(.malformed)
        }
        if message.fingerprint != nil {
            do { try message.verifyFingerprint() } catch { return .dropped(.malformed) }
        }
        switch message.messageType.messageClass {
        case .request: return handleRequest(message, from: source, now: now)
        case .successResponse: return handleSuccess(message, from: source, now: now)
        case .indication: return .handled  // a keepalive (RFC 8445 section 11): no consent
        case .errorResponse: return .dropped(.malformed)
        }
    }

    private func handleRequest(_ message: STUNMessageView, from source: TransportPath, now: MediaTime) -> ICEReceiveResult {
        guard message.usernameEquals(expectedUsername) else { return .dropped(.stunUnknownUsername) }
        do { try message.verifyMessageIntegrity(password: local.password) } catch {
            return .dropped(.stunIntegrity)
        }
        authenticated(source, now: now)
        // The controlled side follows USE-CANDIDATE; a controlling agent
        // ignores it (RFC 8445 section 7.3.1.5).
        if mode == .lite, message.useCandidate, selected != source {
            selected = source
            events.append(.selected(source))
        }
        respond(to: message, from: source)
        return .handled
    }

    private func handleSuccess(_ message: STUNMessageView, from source: TransportPath, now: MediaTime) -> ICEReceiveResult {
        guard case .controlling(let remoteAddress) = mode,
            let index = pendingChecks.firstIndex(where: { $0.id == message.transactionID })
        else { return .dropped(.stunUnknownUsername) }
        do { try message.verifyMessageIntegrity(password: remote.password) } catch {
            return .dropped(.stunIntegrity)
        }
        // RFC 8445 section 7.2.5.2.1: a response from elsewhere than the
        // check went to is a failure (non-symmetric).
        guard source == TransportPath(remoteAddress) else { return .dropped(.unvalidatedAddress) }
        pendingChecks.remove(at: index)
        authenticated(source, now: now)
        if selected != source {
            selected = source
            events.append(.selected(source))
            nextCheck = now.adding(nanoseconds: consentCheckInterval)
        }
        return .handled
    }

    private func authenticated(_ source: TransportPath, now: MediaTime) {
        lastConsent = now
        lastValidated = source
        if validated.insert(source).inserted {
            events.append(.addressValidated(source))
        }
    }

    private func respond(to request: STUNMessageView, from source: TransportPath) {
        var datagram = [UInt8](repeating: 0, count: ICEAgent.messageCapacity)
        let length = datagram.withUnsafeMutableBytes { buffer -> Int? in
            do throws(PacketError) {
                var writer = try STUNMessageWriter(
                    buffer: buffer, type: .bindingSuccessResponse, transactionID: request.transactionID)
                try writer.appendXORMappedAddress(source.address)
                try writer.appendMessageIntegrity(password: local.password)
                try writer.appendFingerprint()
                return writer.finish()
            } catch {
                return nil
            }
        }
        guard let length else { return }
        datagram.removeSubrange(length...)
        transmits.append((datagram, source))
    }

    // MARK: Timers

    /// The next time `handleTimeout` has work: a check to send, or consent
    /// to expire.
    public var nextTimeout: MediaTime? {
        guard !isFailed else { return nil }
        var earliest = nextCheck
        if let deadline = consentDeadline {
            earliest = earliest.map { min($0, deadline) } ?? deadline
        }
        return earliest
    }

    private var consentDeadline: MediaTime? {
        if let lastConsent, selected != nil {
            return lastConsent.adding(nanoseconds: consentTimeout)
        }
        if case .controlling = mode { return startedAt.adding(nanoseconds: consentTimeout) }
        return nil
    }

    public func handleTimeout(now: MediaTime) {
        guard !isFailed else { return }
        if let deadline = consentDeadline, now >= deadline {
            isFailed = true
            nextCheck = nil
            let seconds = Double(consentTimeout) / 1e9
            events.append(.failed(.mediaConnection(
                selected == nil
                    ? "ICE failed: no check succeeded within \(seconds) s"
                    : "ICE consent expired: no valid check for \(seconds) s")))
            return
        }
        guard case .controlling(let remoteAddress) = mode, let due = nextCheck, now >= due else { return }
        sendCheck(to: TransportPath(remoteAddress), now: now)
        nextCheck = now.adding(nanoseconds: selected == nil ? checkInterval : consentCheckInterval)
    }

    private func sendCheck(to destination: TransportPath, now: MediaTime) {
        let id = STUNTransactionID.random()
        var datagram = [UInt8](repeating: 0, count: ICEAgent.messageCapacity)
        let length = datagram.withUnsafeMutableBytes { buffer -> Int? in
            do throws(PacketError) {
                var writer = try STUNMessageWriter(buffer: buffer, type: .bindingRequest, transactionID: id)
                try writer.appendUsername(outgoingUsername)
                try writer.appendPriority(ICEAgent.hostPriority)
                try writer.appendICEControlling(tieBreaker)
                try writer.appendUseCandidate()
                try writer.appendMessageIntegrity(password: remote.password)
                try writer.appendFingerprint()
                return writer.finish()
            } catch {
                return nil
            }
        }
        guard let length else { return }
        datagram.removeSubrange(length...)
        pendingChecks.removeAll { now.nanoseconds(since: $0.sentAt) > consentTimeout }
        if pendingChecks.count >= ICEAgent.pendingLimit { pendingChecks.removeFirst() }
        pendingChecks.append((id, now))
        transmits.append((datagram, destination))
    }

    // MARK: Output

    public func pollTransmit() -> (datagram: [UInt8], destination: TransportPath)? {
        guard transmitsRead < transmits.count else {
            if !transmits.isEmpty {
                transmits.removeAll(keepingCapacity: true)
                transmitsRead = 0
            }
            return nil
        }
        defer { transmitsRead += 1 }
        return transmits[transmitsRead]
    }

    public func pollEvent() -> ICEEvent? {
        events.isEmpty ? nil : events.removeFirst()
    }
}
