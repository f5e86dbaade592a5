import Packets
import WebRTC

/// Reassembles the VP8 frames of one remote video stream from its RTP
/// packets, tolerant of reordering and duplicates (RFC 7741 section 4.5):
/// a frame is the packets from one with S=1 and PID=0 to the next with the
/// marker bit, contiguous in sequence and sharing a timestamp. Frames come
/// out in sequence order; a missing packet holds back later frames until
/// it arrives (a NACK repair) or `maximumWait` passes, then the assembler
/// skips to the next complete frame and flags it `followsLoss`.
///
/// Sans-I/O: the caller gives packets and `now`.
struct VP8FrameAssembler {
    struct Packet {
        var timestamp: UInt32
        var marker: Bool
        var startsFrame: Bool
        var isKeyframe: Bool
        var data: [UInt8]
        var arrival: MediaTime
    }

    /// How long a gap may hold back later complete frames: long enough for
    /// a few NACK round trips on a 100 ms path.
    var maximumWait: UInt64 = 400_000_000
    /// Packets buffered past the next frame at most (a 5000-byte frame is 5
    /// packets; 1024 packets is seconds of video).
    var maximumBuffered: Int64 = 1024

    private var unwrapper = SequenceNumberUnwrapper()
    private var buffer: [Int64: Packet] = [:]
    /// The first packet of the next frame to emit; nil before the first frame.
    private var nextSequence: Int64?
    /// Since when a gap has held back a later complete frame.
    private var stalledSince: MediaTime?
    private var lossPending = false

    private(set) var malformedPackets = 0
    private(set) var latePackets = 0
    /// Frames given up on (skipped over): the caller asks for a keyframe.
    private(set) var skips = 0

    /// Buffers one packet's VP8 payload (descriptor included); returns the
    /// frames it completes, in order.
    mutating func insert(
        sequenceNumber: UInt16, timestamp: UInt32, marker: Bool, payload: UnsafeRawBufferPointer, now: MediaTime
    ) -> [RemoteVideoFrame] {
        guard let descriptor = try? VP8PayloadDescriptor(validating: payload) else {
            malformedPackets += 1
            return []
        }
        // Extended numbers start at 65,536 and grow by one a packet: Int64 holds them for ever.
        let sequence = Int64(unwrapper.unwrap(sequenceNumber))
        if let nextSequence, sequence < nextSequence {
            latePackets += 1
            return []
        }
        guard buffer[sequence] == nil else { return [] }  // duplicate
        let startsFrame = descriptor.startOfPartition && descriptor.partitionIndex == 0
        buffer[sequence] = Packet(
            timestamp: timestamp, marker: marker, startsFrame: startsFrame,
            isKeyframe: startsFrame && descriptor.isKeyframe, data: Array(descriptor.vp8Payload), arrival: now)
        return drain(now: now)
    }

    /// Gives up on a gap that held back a complete frame for `maximumWait`.
    mutating func poll(now: MediaTime) -> [RemoteVideoFrame] {
        drain(now: now)
    }

    /// Sequence numbers (16-bit) missing before the newest buffered packet,
    /// for NACK: from the next frame's start (or the oldest buffered) on.
    var missingSequenceNumbers: [UInt16] {
        guard let highest = unwrapper.highest.map(Int64.init) else { return [] }
        let start = nextSequence ?? buffer.keys.min() ?? highest
        guard highest > start else { return [] }
        var missing: [UInt16] = []
        var sequence = start
        while sequence < highest, missing.count < 256 {
            if buffer[sequence] == nil { missing.append(UInt16(truncatingIfNeeded: sequence)) }
            sequence += 1
        }
        return missing
    }

    private mutating func drain(now: MediaTime) -> [RemoteVideoFrame] {
        var frames: [RemoteVideoFrame] = []
        while true {
            if let start = nextSequence ?? firstFrameStart(), let complete = frame(startingAt: start) {
                if nextSequence == nil, !complete.frame.isKeyframe { lossPending = true }
                frames.append(emit(complete.frame, from: start, to: complete.end))
                continue
            }
            // Held back: skip when a later frame is complete and the gap is
            // old enough, or the buffer is full.
            guard let start = nextSequence ?? buffer.keys.min(), let later = nextCompleteFrame(after: start) else {
                stalledSince = nil
                break
            }
            let highest = unwrapper.highest.map(Int64.init) ?? start
            let since = stalledSince ?? now
            stalledSince = since
            guard now.nanoseconds(since: since) >= maximumWait || highest - start > maximumBuffered else { break }
            lossPending = true
            skips += 1
            for key in buffer.keys where key < later.start { buffer[key] = nil }
            frames.append(emit(later.frame, from: later.start, to: later.end))
        }
        return frames
    }

    private mutating func emit(_ assembled: RemoteVideoFrame, from start: Int64, to end: Int64) -> RemoteVideoFrame {
        var frame = assembled
        frame.followsLoss = lossPending
        lossPending = false
        stalledSince = nil
        for sequence in start...end { buffer[sequence] = nil }
        nextSequence = end + 1
        return frame
    }

    /// Before the first frame: the oldest buffered frame start.
    private func firstFrameStart() -> Int64? {
        buffer.filter { $0.value.startsFrame }.keys.min()
    }

    /// The frame starting at `start` when all its packets are here.
    private func frame(startingAt start: Int64) -> (frame: RemoteVideoFrame, end: Int64)? {
        guard let first = buffer[start], first.startsFrame else { return nil }
        var data = first.data
        var sequence = start
        var packet = first
        while !packet.marker {
            sequence += 1
            guard let next = buffer[sequence], !next.startsFrame, next.timestamp == first.timestamp else { return nil }
            data += next.data
            packet = next
        }
        return (
            RemoteVideoFrame(
                data: data, isKeyframe: first.isKeyframe, rtpTimestamp: first.timestamp, arrival: packet.arrival,
                followsLoss: false),
            sequence
        )
    }

    private func nextCompleteFrame(after start: Int64) -> (frame: RemoteVideoFrame, start: Int64, end: Int64)? {
        for key in buffer.keys.filter({ $0 > start && buffer[$0]?.startsFrame == true }).sorted() {
            if let complete = frame(startingAt: key) { return (complete.frame, key, complete.end) }
        }
        return nil
    }
}
