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
    /// VP8 TID, nil when the descriptor has none.
    public var temporalLayer: UInt8?
    /// VP8 Y bit: a receiver may switch up to `temporalLayer` here.
    public var layerSync: Bool

    public init(
        sequence: UInt64, timestamp: UInt32, epoch: UInt32 = 0, isKeyframe: Bool = false,
        pictureID: UInt16? = nil, tl0PicIdx: UInt8? = nil, temporalLayer: UInt8? = nil, layerSync: Bool = false
    ) {
        self.sequence = sequence
        self.timestamp = timestamp
        self.epoch = epoch
        self.isKeyframe = isKeyframe
        self.pictureID = pictureID
        self.tl0PicIdx = tl0PicIdx
        self.temporalLayer = temporalLayer
        self.layerSync = layerSync
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
///
/// Packets the DownTrack leaves out in order (`skip`: VP8 temporal layers
/// above its cap) close up behind them: the sequence offset (and, per
/// skipped picture, the picture ID offset) grows by one, so the subscriber
/// sees no hole. Each such step starts a new segment of the mapping; the
/// last `segmentCapacity` are kept so late packets and NACKs of the
/// segments before still map through the offsets they were sent with.
public struct RTPMunger: Sendable {
    /// 32 segments: at 30 fps with every other frame skipped (half the
    /// frame rate), 2 s of history, more than a NACK round trip.
    public static let segmentCapacity = 32
    /// One finished segment: the first receiver number and the offsets.
    struct Segment: Sendable {
        var startInput: UInt64
        var sequenceOffset: UInt64
        var pictureIDOffset: UInt16
    }
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
    /// Where the current segment starts (receiver number).
    private var segmentStart: UInt64 = 0
    /// Finished segments of the current mapping, a ring; allocated once.
    private var segments: [Segment]
    private var segmentCount = 0
    private var segmentNext = 0
    /// The picture ID of the last skipped packet (a skipped picture moves
    /// the picture ID offset once, not once per packet).
    private var lastSkippedPictureID: UInt16?
    /// Packets skipped in order so far.
    public private(set) var skipped: UInt64 = 0

    /// `initialSequenceNumber` is the first number the subscriber will see.
    public init(clockRate: UInt32, startsOnKeyframe: Bool, initialSequenceNumber: UInt16 = 0) {
        self.clockRate = clockRate
        self.startsOnKeyframe = startsOnKeyframe
        // Cycle 1, so the first packet's extended number is never below 2^16.
        self.lastSequence = 0x1_0000 &+ UInt64(initialSequenceNumber) &- 1
        self.segments = Array(
            repeating: Segment(startInput: 0, sequenceOffset: 0, pictureIDOffset: 0), count: Self.segmentCapacity)
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
        } else if input.sequence < segmentStart && segment(containing: input.sequence) == nil {
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
        var sequenceOffset = sequenceOffset
        var pictureIDOffset = pictureIDOffset
        if input.sequence < segmentStart, let segment = segment(containing: input.sequence) {
            sequenceOffset = segment.sequenceOffset
            pictureIDOffset = segment.pictureIDOffset
        }
        return ForwardParameters(
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
        var input = output &+ sequenceOffset
        if input < segmentStart {
            // An older segment: the newest one that starts at or before `output`.
            guard let segment = segment(startingAtOrBeforeOutput: output) else { return nil }
            input = output &+ segment.sequenceOffset
        }
        guard input >= resyncSequence else { return nil }
        return input
    }

    /// Leaves `input` out without a hole: when it is the newest packet of
    /// the current mapping, the numbering closes up behind it. (A skipped
    /// packet older than the newest cannot close up: the subscriber sees a
    /// hole there, as for a loss.)
    public mutating func skip(_ input: ForwardInput) {
        guard !isPaused, !needsResync, input.epoch == epoch, input.sequence > highestInput else { return }
        segments[segmentNext] = Segment(
            startInput: segmentStart, sequenceOffset: sequenceOffset, pictureIDOffset: pictureIDOffset)
        segmentNext = (segmentNext &+ 1) % Self.segmentCapacity
        segmentCount = min(segmentCount &+ 1, Self.segmentCapacity)
        sequenceOffset &+= 1
        if let pictureID = input.pictureID, pictureID != lastSkippedPictureID {
            pictureIDOffset &+= 1
            lastSkippedPictureID = pictureID
        }
        highestInput = input.sequence
        segmentStart = input.sequence &+ 1
        skipped &+= 1
    }

    /// The finished segment holding receiver number `sequence`.
    private func segment(containing sequence: UInt64) -> Segment? {
        var index = segmentNext
        for _ in 0..<segmentCount {
            index = index == 0 ? Self.segmentCapacity - 1 : index - 1
            if segments[index].startInput <= sequence { return segments[index] }
        }
        return nil
    }

    /// The newest finished segment whose first output is at or before `output`.
    private func segment(startingAtOrBeforeOutput output: UInt64) -> Segment? {
        var index = segmentNext
        for _ in 0..<segmentCount {
            index = index == 0 ? Self.segmentCapacity - 1 : index - 1
            if segments[index].startInput &- segments[index].sequenceOffset <= output { return segments[index] }
        }
        return nil
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
        segmentStart = input.sequence
        segmentCount = 0
        lastSkippedPictureID = nil
    }
}
