/// What a worker's ICE-TCP side did and refused (exported at /metrics).
public struct TCPCounters: Sendable, Equatable {
    public var accepted: UInt64 = 0
    /// Whole RFC 4571 frames received and handed to the demux.
    public var framesReceived: UInt64 = 0
    /// Whole frames queued for writing.
    public var framesSent: UInt64 = 0
    /// Frames dropped whole because a stream's write buffer was full (a
    /// peer that reads too slowly).
    public var framesDroppedSlowReader: UInt64 = 0
    /// Streams closed for a length of 0 or over the maximum.
    public var closedBadLength: UInt64 = 0
    /// Streams closed for a frame no demux accepts (not STUN before
    /// authentication; not STUN, DTLS, RTP or RTCP after).
    public var closedGarbage: UInt64 = 0
    /// Streams closed for no authenticated STUN check within the handshake timeout.
    public var closedHandshakeTimeout: UInt64 = 0
    /// Streams closed to make room under the unauthenticated limit.
    public var closedUnauthenticatedLimit: UInt64 = 0
    /// Authenticated streams closed after the consent timeout without input.
    public var closedIdle: UInt64 = 0
    /// Streams the peer closed or that failed.
    public var closedByPeer: UInt64 = 0
    /// Streams open now, and of them not yet authenticated (gauges).
    public var open = 0
    public var unauthenticated = 0
    /// Bytes waiting in write buffers now (a gauge).
    public var bufferedBytes = 0

    public init() {}

    mutating func add(_ o: TCPCounters) {
        accepted &+= o.accepted
        framesReceived &+= o.framesReceived
        framesSent &+= o.framesSent
        framesDroppedSlowReader &+= o.framesDroppedSlowReader
        closedBadLength &+= o.closedBadLength
        closedGarbage &+= o.closedGarbage
        closedHandshakeTimeout &+= o.closedHandshakeTimeout
        closedUnauthenticatedLimit &+= o.closedUnauthenticatedLimit
        closedIdle &+= o.closedIdle
        closedByPeer &+= o.closedByPeer
        open += o.open
        unauthenticated += o.unauthenticated
        bufferedBytes += o.bufferedBytes
    }
}
