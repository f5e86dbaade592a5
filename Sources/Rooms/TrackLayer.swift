/// One simulcast layer as a `publish`'s `tracks` entry describes it
/// (`"layers":[{"rid":"q","width":320,"height":180}]`, PROTOCOL.md 7): the
/// size the publisher sends it at, as a hint until the server sees its
/// keyframes.
public struct TrackLayer: Hashable, Sendable, Codable {
    public var rid: String
    public var width: Int?
    public var height: Int?

    public init(rid: String, width: Int? = nil, height: Int? = nil) {
        self.rid = rid
        self.width = width
        self.height = height
    }
}
