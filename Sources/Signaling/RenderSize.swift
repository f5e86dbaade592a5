/// `renderDimensions` of `setContentPreferences` (PROTOCOL.md 7): the size
/// in pixels a subscriber renders a video track at, each side 1...16384
/// (else the frame is a 53003).
public struct RenderSize: Sendable, Equatable, Decodable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    private enum Key: String, CodingKey { case width, height }

    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: Key.self)
        width = try fields.decode(Int.self, forKey: .width)
        height = try fields.decode(Int.self, forKey: .height)
        guard (1...16384).contains(width), (1...16384).contains(height) else {
            throw DecodingError.dataCorruptedError(
                forKey: .width, in: fields, debugDescription: "renderDimensions must be 1...16384 pixels a side")
        }
    }
}
