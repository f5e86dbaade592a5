import Foundation
import ArgumentParser

/// The render sizes subscribers ask for, as a mix:
/// `--render 320x180:50%,1280x720:50%`. Each subscriber of a room gets one
/// size, in the mix's proportions; it sends `setContentPreferences` with it
/// for every remote video track (PROTOCOL.md section 7).
public struct RenderMix: Sendable, Equatable, Codable, CustomStringConvertible, ExpressibleByArgument {
    public struct Share: Sendable, Equatable {
        public var size: VideoResolution
        /// Percent of the subscribers, 0 < percent <= 100.
        public var percent: Double

        public init(size: VideoResolution, percent: Double) {
            self.size = size
            self.percent = percent
        }
    }

    /// In the order given.
    public var shares: [Share]

    public init(shares: [Share]) {
        self.shares = shares
    }

    /// `WxH:P%` items joined by commas; the percents must add up to 100 (a
    /// single size may leave its percent out: `640x360`). A size appears
    /// once.
    public init?(argument: String) {
        var shares: [Share] = []
        let items = argument.split(separator: ",", omittingEmptySubsequences: false)
        for item in items {
            let parts = item.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 1 || parts.count == 2, let size = VideoResolution(argument: String(parts[0])),
                !shares.contains(where: { $0.size == size })
            else { return nil }
            var percent = 100.0
            if parts.count == 2 {
                var text = parts[1]
                guard text.hasSuffix("%") else { return nil }
                text.removeLast()
                guard let value = Double(text), value > 0, value <= 100 else { return nil }
                percent = value
            } else if items.count > 1 {
                return nil
            }
            shares.append(Share(size: size, percent: percent))
        }
        guard !shares.isEmpty, abs(shares.reduce(0) { $0 + $1.percent } - 100) < 0.001 else { return nil }
        self.shares = shares
    }

    public var description: String {
        shares.map { "\($0.size):\(Self.format($0.percent))%" }.joined(separator: ",")
    }

    private static func format(_ percent: Double) -> String {
        percent == percent.rounded() ? String(Int(percent)) : String(percent)
    }

    /// The size of subscriber `index` of `count` in a room: the share whose
    /// cumulative range holds the subscriber's midpoint, so 3 subscribers
    /// at 50/50 get A, A, B and every count splits as closely as it can.
    public func size(forSubscriber index: Int, of count: Int) -> VideoResolution {
        let point = (Double(index) + 0.5) / Double(max(count, 1)) * 100
        var cumulative = 0.0
        for share in shares {
            cumulative += share.percent
            if point <= cumulative { return share.size }
        }
        return shares[shares.count - 1].size
    }

    /// The size a subscriber changes to with `--render-change-after`: the
    /// next one in the mix (the last goes back to the first).
    public func changed(from size: VideoResolution) -> VideoResolution {
        guard let index = shares.firstIndex(where: { $0.size == size }) else { return size }
        return shares[(index + 1) % shares.count].size
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let parsed = RenderMix(argument: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "expected WxH:P%,WxH:P% adding up to 100%, got \(text)"))
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
