/// A picture size in pixels: what a subscriber renders a track at
/// (`RemoteVideoTrack.setContentPreferences(renderDimensions:)`), or a
/// decoded frame's size.
public struct VideoDimensions: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// "640x360".
    public var description: String { "\(width)x\(height)" }
}
