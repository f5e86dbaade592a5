import ArgumentParser

/// A video frame size written `WxH` (`--video-resolution 640x360`).
public struct VideoResolution: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByArgument {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `WxH` with both sides even and in 16...4096 (VP8's I420 needs even
    /// sides; libvpx takes up to 16383, but larger is no load test of ours).
    public init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
            (16...4096).contains(w), (16...4096).contains(h), w % 2 == 0, h % 2 == 0
        else { return nil }
        self.init(width: w, height: h)
    }

    public var description: String { "\(width)x\(height)" }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let parsed = VideoResolution(argument: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "expected WxH, got \(text)"))
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
