/// Which VP8 temporal layers (TID, RFC 7741) one DownTrack forwards: all up
/// to `current`, which follows `cap` only where a decoder can follow. Going
/// down takes effect at the next frame (a frame is never cut in half);
/// going up waits for a frame that allows it: a keyframe, or a layer-sync
/// frame (Y bit) of a layer above `current` and within the cap. Streams
/// without TID pass untouched.
public struct TemporalLayerFilter: Sendable, Equatable {
    /// VP8 has at most four temporal layers (TID is two bits).
    public static let all: UInt8 = 3
    /// The highest TID wanted.
    public var cap: UInt8 = Self.all
    /// The highest TID forwarded now.
    public private(set) var current: UInt8 = Self.all
    private var frameTimestamp: UInt32?
    private var droppingFrame = false

    public init(cap: UInt8 = Self.all) {
        self.cap = cap
        self.current = cap
    }

    /// Whether the packet `input` goes out. Decides once per frame, at its
    /// first packet (the first with a newer timestamp); the frame's other
    /// packets follow that decision. A packet of an older frame (reordered)
    /// is judged by its own TID.
    public mutating func admit(_ input: ForwardInput) -> Bool {
        guard let tid = input.temporalLayer else { return true }
        if let frame = frameTimestamp, !input.isKeyframe {
            if input.timestamp == frame { return !droppingFrame }
            if Int32(bitPattern: input.timestamp &- frame) < 0 { return tid <= current }
        }
        frameTimestamp = input.timestamp
        if cap < current {
            current = cap
        } else if cap > current {
            if input.isKeyframe {
                current = cap
            } else if input.layerSync && tid > current && tid <= cap {
                current = tid
            }
        }
        droppingFrame = tid > current
        return !droppingFrame
    }

    /// Forgets the frame in progress: the next packet starts a new one.
    /// For a switch to another stream (a simulcast layer), whose timestamps
    /// have nothing to do with the last one's.
    public mutating func restart() {
        frameTimestamp = nil
        droppingFrame = false
    }
}
