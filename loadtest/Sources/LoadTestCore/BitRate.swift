import Foundation
import ArgumentParser

/// Bits per second, written `300000`, `300k` or `1.5M` on the command line
/// (and as a number of bits per second, or the same strings, in a scenario).
public struct BitRate: Sendable, Equatable, Codable, CustomStringConvertible, ExpressibleByArgument {
    public var bitsPerSecond: Int

    public init(bitsPerSecond: Int) { self.bitsPerSecond = bitsPerSecond }

    /// 8 kbit/s to 20 Mbit/s: libvpx's useful range for one stream.
    public init?(argument: String) {
        var text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        var scale = 1.0
        if text.hasSuffix("k") { scale = 1_000; text.removeLast() } else if text.hasSuffix("m") { scale = 1_000_000; text.removeLast() }
        guard let value = Double(text), value.isFinite else { return nil }
        let bits = Int((value * scale).rounded())
        guard (8_000...20_000_000).contains(bits) else { return nil }
        self.init(bitsPerSecond: bits)
    }

    public var description: String {
        bitsPerSecond % 1_000_000 == 0 ? "\(bitsPerSecond / 1_000_000)M"
            : bitsPerSecond % 1_000 == 0 ? "\(bitsPerSecond / 1_000)k" : "\(bitsPerSecond)"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            guard let parsed = BitRate(argument: String(number)) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "bitrate \(number) out of 8k...20M"))
            }
            self = parsed
        } else {
            let text = try container.decode(String.self)
            guard let parsed = BitRate(argument: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "expected a bitrate like 300k, got \(text)"))
            }
            self = parsed
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(bitsPerSecond)
    }
}
