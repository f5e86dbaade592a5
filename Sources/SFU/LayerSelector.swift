import Packets

/// Chooses the spatial layer one DownTrack of a simulcast track should
/// forward (PROTOCOL.md section 7), without a bandwidth estimate yet: the
/// smallest layer that covers what the subscriber renders, among the layers
/// that are live and not backed off. Sans-I/O: the router passes each
/// layer's size and liveness and `now`; it applies the target (PLI on that
/// layer, switch at its keyframe) and reports back with `switched(to:)`.
///
/// Decisions, with their numbers:
/// - "Covers" compares long side with long side and short with short, so a
///   portrait phone shown in a landscape tile still gets a layer as large
///   as the tile (`width >= render` and `height >= render` on the sorted
///   pair). No render size: the highest layer.
/// - A layer is live while a packet came within `liveThreshold` (1.5 s:
///   Chrome's lowest frame rate when it pauses a layer for CPU is about
///   5 fps, 200 ms a frame; 1.5 s of nothing is a stopped encoding, not
///   jitter). A current layer that stops is left for the best live one.
/// - A target whose keyframe does not come within `keyframeTimeout` (2 s:
///   four PLIs at the 500 ms request interval) is given up: that layer is
///   skipped for a back-off that starts at 4 s and doubles up to 64 s, and
///   reset when a switch to it succeeds.
public struct LayerSelector: Sendable {
    public static let liveThreshold: UInt64 = 1_500_000_000
    public static let keyframeTimeout: UInt64 = 2_000_000_000
    public static let initialBackoff: UInt64 = 4_000_000_000
    public static let maximumBackoff: UInt64 = 64_000_000_000

    /// One layer as the selector sees it.
    public struct Layer: Equatable, Sendable {
        public var width: Int
        public var height: Int
        public var isLive: Bool

        public init(width: Int, height: Int, isLive: Bool) {
            self.width = width
            self.height = height
            self.isLive = isLive
        }
    }

    public let layerCount: Int
    /// What the subscriber renders; nil: no cap (the highest layer).
    public var renderSize: (width: Int, height: Int)?
    /// The highest layer the subscriber's bandwidth allows (the
    /// `StreamAllocator`'s choice); nil: no cap.
    public var maxLayer: Int?
    /// The layer forwarded now; nil before the first switch.
    public private(set) var current: Int?
    /// The layer wanted; a switch is pending while it differs from `current`.
    public private(set) var target: Int
    /// The layer the render size asks for, within `maxLayer`, live or not
    /// (the publisher is asked to keep it on).
    public private(set) var ideal: Int
    /// When the router started waiting for the target's keyframe.
    public private(set) var waitingSince: MediaTime?
    private var retryAfter: [MediaTime?]
    private var backoff: [UInt64]

    public init(layerCount: Int) {
        precondition(layerCount > 0)
        self.layerCount = layerCount
        self.target = layerCount - 1
        self.ideal = layerCount - 1
        self.retryAfter = Array(repeating: nil, count: layerCount)
        self.backoff = Array(repeating: Self.initialBackoff, count: layerCount)
    }

    /// Whether a switch is pending.
    public var isSwitching: Bool { current != target }

    /// The smallest layer covering `renderSize` (by `layer(i)`'s size), the
    /// highest when none does or when there is no render size.
    public func idealLayer(_ layer: (Int) -> Layer) -> Int {
        guard let render = renderSize else { return layerCount - 1 }
        return Self.coveringLayer(render: render, layerCount: layerCount) {
            let size = layer($0)
            return (size.width, size.height)
        }
    }

    /// The smallest of `layerCount` layers (sizes by `size(i)`, lowest
    /// first) that covers `render`, long side against long side and short
    /// against short; the highest when none does. The `StreamAllocator`
    /// caps its choice with the same rule.
    public static func coveringLayer(
        render: (width: Int, height: Int), layerCount: Int, size: (Int) -> (width: Int, height: Int)
    ) -> Int {
        let renderLong = max(render.width, render.height)
        let renderShort = min(render.width, render.height)
        for index in 0..<layerCount {
            let layer = size(index)
            if max(layer.width, layer.height) >= renderLong && min(layer.width, layer.height) >= renderShort {
                return index
            }
        }
        return layerCount - 1
    }

    /// Re-decides the target at `now`; true when it changed (the router then
    /// asks for a keyframe on the new target). Allocates nothing.
    public mutating func update(now: MediaTime, layer: (Int) -> Layer) -> Bool {
        let previous = target
        if let since = waitingSince, isSwitching, now.nanoseconds(since: since) >= Self.keyframeTimeout {
            // The target's keyframe never came: skip it for a while.
            retryAfter[target] = now.adding(nanoseconds: backoff[target])
            backoff[target] = min(backoff[target] &* 2, Self.maximumBackoff)
            waitingSince = nil
            if let current { target = current }
        }
        ideal = min(idealLayer(layer), maxLayer ?? layerCount - 1)
        var best: Int?
        var lowestAbove: Int?
        for index in 0..<layerCount {
            let isCandidate: Bool
            if index == current {
                isCandidate = layer(index).isLive
            } else {
                isCandidate = layer(index).isLive && retryAfter[index].map { now >= $0 } ?? true
            }
            guard isCandidate else { continue }
            if index <= ideal {
                best = index
            } else if lowestAbove == nil {
                lowestAbove = index
            }
        }
        // Nothing live at or below the ideal: the smallest live one above it;
        // nothing live at all: stay (or, before the first switch, wait for
        // the ideal one unless it is backed off).
        let choice: Int
        if let pick = best ?? lowestAbove {
            choice = pick
        } else if let current {
            choice = current
        } else if retryAfter[ideal].map({ now < $0 }) ?? false {
            choice = target
        } else {
            choice = ideal
        }
        if choice != target {
            target = choice
            waitingSince = choice == current ? nil : now
        } else if isSwitching && waitingSince == nil {
            waitingSince = now
        }
        return target != previous
    }

    /// The target's keyframe arrived and the DownTrack now forwards `layer`.
    public mutating func switched(to layer: Int) {
        current = layer
        if layer == target {
            waitingSince = nil
            retryAfter[layer] = nil
            backoff[layer] = Self.initialBackoff
        }
    }

    /// The DownTrack stopped forwarding (switched off): it starts over at a
    /// keyframe of the target when it comes back.
    public mutating func reset(now: MediaTime) {
        current = nil
        waitingSince = now
    }
}
