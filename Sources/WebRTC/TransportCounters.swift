/// What one PeerTransport received, dropped and protected. Plain stored
/// integers (no array or dictionary), so bumping one on the packet path
/// never allocates or copies.
public struct TransportCounters: Sendable, Hashable {
    /// Every datagram given to `receive`.
    public var datagramsReceived: UInt64 = 0
    /// STUN messages that passed every check.
    public var stunHandled: UInt64 = 0
    /// DTLS datagrams fed to the DTLS endpoint.
    public var dtlsHandled: UInt64 = 0
    /// SRTP packets unprotected into RTP.
    public var rtpReceived: UInt64 = 0
    /// SRTCP packets unprotected into RTCP.
    public var rtcpReceived: UInt64 = 0
    public var rtpProtected: UInt64 = 0
    public var rtcpProtected: UInt64 = 0
    /// Protect calls that failed although connected (no room for the tag,
    /// libsrtp refused the header).
    public var protectFailures: UInt64 = 0

    public var droppedMalformed: UInt64 = 0
    public var droppedSTUNIntegrity: UInt64 = 0
    public var droppedSTUNUnknownUsername: UInt64 = 0
    public var droppedUnvalidatedAddress: UInt64 = 0
    public var droppedNotConnected: UInt64 = 0
    public var droppedSRTPAuth: UInt64 = 0
    public var droppedReplay: UInt64 = 0
    public var droppedDTLS: UInt64 = 0

    public init() {}

    /// The drop counter for `reason`.
    public subscript(dropped reason: TransportDropReason) -> UInt64 {
        get {
            switch reason {
            case .malformed: droppedMalformed
            case .stunIntegrity: droppedSTUNIntegrity
            case .stunUnknownUsername: droppedSTUNUnknownUsername
            case .unvalidatedAddress: droppedUnvalidatedAddress
            case .notConnected: droppedNotConnected
            case .srtpAuth: droppedSRTPAuth
            case .replay: droppedReplay
            case .dtls: droppedDTLS
            }
        }
        set {
            switch reason {
            case .malformed: droppedMalformed = newValue
            case .stunIntegrity: droppedSTUNIntegrity = newValue
            case .stunUnknownUsername: droppedSTUNUnknownUsername = newValue
            case .unvalidatedAddress: droppedUnvalidatedAddress = newValue
            case .notConnected: droppedNotConnected = newValue
            case .srtpAuth: droppedSRTPAuth = newValue
            case .replay: droppedReplay = newValue
            case .dtls: droppedDTLS = newValue
            }
        }
    }

    /// All drops together.
    public var dropped: UInt64 {
        TransportDropReason.allCases.reduce(0) { $0 + self[dropped: $1] }
    }
}
