import Packets

/// One packet as a DownTrack's munger sees it: the receiver's numbering and
/// the fields a rewrite may change. Built by the router per packet, on the
/// stack.
public struct ForwardInput: Equatable, Sendable {
    /// The receiver's compacted extended sequence number: contiguous across
    /// dropped padding and continued (with a jump) across a source change.
    public var sequence: UInt64
    public var timestamp: UInt32
    /// Bumped by the receiver when the publisher's SSRC changes (a restart).
    public var epoch: UInt32
    /// First packet of a VP8 keyframe.
    public var isKeyframe: Bool
    public var pictureID: UInt16?
    public var tl0PicIdx: UInt8?

    public init(
        sequence: UInt64, timestamp: UInt32, epoch: UInt32 = 0, isKeyframe: Bool = false,
        pictureID: UInt16? = nil, tl0PicIdx: UInt8? = nil
    ) {
        self.sequence = sequence
        self.timestamp = timestamp
        self.epoch = epoch
        self.isKeyframe = isKeyframe
        self.pictureID = pictureID
        self.tl0PicIdx = tl0PicIdx
    }
}

/// The values a forwarded copy gets.
public struct ForwardParameters: Equatable, Sendable {
    /// The subscriber-side extended sequence number.
    public var extendedSequenceNumber: UInt64
    public var timestamp: UInt32
    /// The picture ID to write (15 bits; a 7-bit field takes the low 7), nil
    /// to leave the descriptor alone.
    public var pictureID: UInt16?
    public var tl0PicIdx: UInt8?
    /// This packet started a new mapping (first packet, or after a pause,
    /// a disabled period or a source change).
    public var isResync: Bool

    /// The 16 bits written into the header.
    @inlinable public var sequenceNumber: UInt16 { UInt16(truncatingIfNeeded: extendedSequenceNumber) }
}

/// Why a munger holds a packet back.
public enum ForwardDropReason: Equatable, Sendable {
    /// Video must (re)start on a keyframe; the router asks for one (PLI).
    case waitingForKeyframe
    /// Older than the packet the current mapping started with.
    case tooOld
    /// Paused (remote audio of an interrupted subscriber, or a disabled track).
    case paused
}

/// What to do with one packet for one subscriber.
public enum ForwardDecision: Equatable, Sendable {
    case forward(ForwardParameters)
    case drop(ForwardDropReason)
}

/// Decides, for one DownTrack, which packets go out and with which sequence
/// number, timestamp and VP8 picture ID/TL0PICIDX (LiveKit's rtpmunger and
/// forwarder, STYLE.md habit 6). It owns no bytes: `translate` returns a
/// plain `ForwardDecision` that the DownTrack then writes.
///
/// A mapping is three offsets (sequence, timestamp, picture ID, TL0PICIDX)
/// from the receiver's numbering to the subscriber's. It is set on the first
/// packet forwarded after a (re)start so that the subscriber sees the next
/// sequence number after the last one it got (PROTOCOL.md section 5: aiortc
/// waits for up to 128 missing numbers before it resyncs) and a timestamp
/// advanced by the wall time elapsed times the clock rate. Within a mapping
/// late packets keep their place, so reordering and retransmissions map the
/// same way, and a subscriber's NACK maps back through the same offsets.
public struct RTPMunger: Sendable {
    public let clockRate: UInt32
    /// Video: a new mapping starts only on a keyframe.
    public let startsOnKeyframe: Bool
    public private(set) var isPaused = false
    /// The next forwarded packet starts a new mapping.
    public private(set) var needsResync = true
    /// The receiver epoch the current mapping belongs to.
    public private(set) var epoch: UInt32 = 0
    /// out = in - offset, in wrapping 64-bit arithmetic.
    private var sequenceOffset: UInt64 = 0
    /// The newest subscriber-side extended sequence number sent.
    public private(set) var lastSequence: UInt64
    /// The receiver number the current mapping began with.
    private var resyncSequence: UInt64 = 0
    private var highestInput: UInt64 = 0
    private var timestampOffset: UInt32 = 0
    public private(set) var lastTimestamp: UInt32 = 0
    /// When the newest packet was forwarded; nil before the first.
    public private(set) var lastForwardTime: MediaTime?
    private var pictureIDOffset: UInt16 = 0
    private var lastPictureID: UInt16?
    private var tl0Offset: UInt8 = 0
    private var lastTL0: UInt8?

    /// `initialSequenceNumber` is the first number the subscriber will see.
    public init(clockRate: UInt32, startsOnKeyframe: Bool, initialSequenceNumber: UInt16 = 0) {
        self.clockRate = clockRate
        self.startsOnKeyframe = startsOnKeyframe
        // Cycle 1, so the first packet's extended number is never below 2^16.
        self.lastSequence = 0x1_0000 &+ UInt64(initialSequenceNumber) &- 1
    }

    /// Stops forwarding until `resume()`.
    public mutating func pause() {
        isPaused = true
        needsResync = true
    }

    /// Forwards again from the next suitable packet (a keyframe for video).
    public mutating func resume() {
        isPaused = false
        needsResync = true
    }

    /// Starts a new mapping at the next suitable packet (after a disabled
    /// period, or when the stream had a gap nothing can repair).
    public mutating func requestResync() {
        needsResync = true
    }

    /// The decision for `input`, arriving at `now`; updates the mapping.
    public mutating func translate(_ input: ForwardInput, now: MediaTime) -> ForwardDecision {
        if isPaused { return .drop(.paused) }
        if input.epoch != epoch { needsResync = true }
        var isResync = false
        if needsResync {
            if startsOnKeyframe && !input.isKeyframe { return .drop(.waitingForKeyframe) }
            resync(at: input, now: now)
            isResync = true
        } else if input.sequence < resyncSequence {
            return .drop(.tooOld)
        }
        let parameters = parameters(for: input, isResync: isResync)
        if isResync || input.sequence > highestInput {
            highestInput = input.sequence
            lastSequence = parameters.extendedSequenceNumber
            lastTimestamp = parameters.timestamp
            lastForwardTime = now
            if let pictureID = parameters.pictureID { lastPictureID = pictureID }
            if let tl0 = parameters.tl0PicIdx { lastTL0 = tl0 }
        }
        return .forward(parameters)
    }

    /// The values `input` maps to in the current mapping, with no state
    /// change: for retransmissions.
    public func parameters(for input: ForwardInput, isResync: Bool = false) -> ForwardParameters {
        ForwardParameters(
            extendedSequenceNumber: input.sequence &- sequenceOffset,
            timestamp: input.timestamp &- timestampOffset,
            pictureID: input.pictureID.map { ($0 &- pictureIDOffset) & 0x7FFF },
            tl0PicIdx: input.tl0PicIdx.map { $0 &- tl0Offset },
            isResync: isResync)
    }

    /// The receiver sequence number behind a subscriber-side number (from a
    /// NACK), if it was sent in the current mapping.
    public func inputSequence(forOutput sequenceNumber: UInt16) -> UInt64? {
        guard lastForwardTime != nil else { return nil }
        let delta = Int16(bitPattern: sequenceNumber &- UInt16(truncatingIfNeeded: lastSequence))
        guard delta <= 0 else { return nil }
        let output = UInt64(bitPattern: Int64(bitPattern: lastSequence) &+ Int64(delta))
        let input = output &+ sequenceOffset
        guard input >= resyncSequence else { return nil }
        return input
    }

    private mutating func resync(at input: ForwardInput, now: MediaTime) {
        let output = lastSequence &+ 1
        sequenceOffset = input.sequence &- output
        resyncSequence = input.sequence
        if let lastForwardTime {
            // The subscriber's clock keeps running through the gap: advance
            // by the wall time elapsed (at least one tick so it moves).
            let elapsed = now.nanoseconds(since: lastForwardTime)
            let ticks = max(1, elapsed / 1000 &* UInt64(clockRate) / 1_000_000)
            timestampOffset = input.timestamp &- (lastTimestamp &+ UInt32(truncatingIfNeeded: ticks))
        } else {
            timestampOffset = 0
        }
        if let pictureID = input.pictureID {
            pictureIDOffset = lastPictureID.map { (pictureID &- ($0 &+ 1)) & 0x7FFF } ?? 0
        }
        if let tl0 = input.tl0PicIdx {
            tl0Offset = lastTL0.map { tl0 &- ($0 &+ 1) } ?? 0
        }
        epoch = input.epoch
        needsResync = false
    }
}
