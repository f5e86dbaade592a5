import ArgumentParser

/// Subscribers' downlinks as groups: `--downlink-kbps 250,800,0` makes
/// three groups, shaped to 250 kbit/s, 800 kbit/s and not shaped (0).
/// Subscriber *i* of each room is in group *i* mod 3 (round robin), so
/// 6 subscribers per room give two of each. A shaped subscriber's media
/// goes through a `vroom-impair --rate-kbps N --directions down` of its
/// own: each subscriber has its own bottleneck, as on a real network.
public struct DownlinkGroups: Sendable, Equatable, Codable, CustomStringConvertible, ExpressibleByArgument {
    /// kbit/s per group, in the order given; 0 = not shaped.
    public var kilobitsPerSecond: [Int]

    public init(kilobitsPerSecond: [Int]) {
        self.kilobitsPerSecond = kilobitsPerSecond
    }

    /// Whole kbit/s (0 or 8...1,000,000) joined by commas; at most 16 groups.
    public init?(argument: String) {
        var groups: [Int] = []
        for item in argument.split(separator: ",", omittingEmptySubsequences: false) {
            guard let value = Int(item.trimmingCharacters(in: .whitespaces)), value == 0 || (8...1_000_000).contains(value)
            else { return nil }
            groups.append(value)
        }
        guard (1...16).contains(groups.count) else { return nil }
        kilobitsPerSecond = groups
    }

    public var description: String { kilobitsPerSecond.map(String.init).joined(separator: ",") }

    /// The group of subscriber `index` of a room (0-based), round robin.
    public func group(forSubscriber index: Int) -> Int { index % kilobitsPerSecond.count }

    /// Its rate, kbit/s; 0 when not shaped.
    public func kilobitsPerSecond(forSubscriber index: Int) -> Int { kilobitsPerSecond[group(forSubscriber: index)] }

    /// A group's name in reports: "250 kbit/s" or "unlimited".
    public static func label(_ kilobitsPerSecond: Int) -> String {
        kilobitsPerSecond == 0 ? "unlimited" : "\(kilobitsPerSecond) kbit/s"
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let parsed = DownlinkGroups(argument: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "expected kbit/s per group, e.g. 250,800,0; got \(text)"))
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
