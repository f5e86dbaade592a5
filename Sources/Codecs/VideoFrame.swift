/// One picture in I420 (YUV 4:2:0 planar) with tightly packed planes: `y`
/// holds `width * height` bytes row by row, `u` and `v` each hold
/// `chromaWidth * chromaHeight` bytes (half the size, rounded up).
public struct VideoFrame: Sendable {
    public var width: Int
    public var height: Int
    /// Luma, `width * height` bytes, no row padding.
    public var y: [UInt8]
    /// Blue-difference chroma, `chromaWidth * chromaHeight` bytes.
    public var u: [UInt8]
    /// Red-difference chroma, `chromaWidth * chromaHeight` bytes.
    public var v: [UInt8]

    public init(width: Int, height: Int, y: [UInt8], u: [UInt8], v: [UInt8]) {
        self.width = width
        self.height = height
        self.y = y
        self.u = u
        self.v = v
    }

    /// A uniform frame: luma `luma` (16 is video black), grey chroma.
    public init(width: Int, height: Int, luma: UInt8 = 16) {
        let chroma = [UInt8](repeating: 128, count: Self.chromaWidth(width) * Self.chromaHeight(height))
        self.init(width: width, height: height,
                  y: [UInt8](repeating: luma, count: max(0, width) * max(0, height)),
                  u: chroma, v: chroma)
    }

    /// Width of the chroma planes: half the luma width, rounded up.
    public var chromaWidth: Int { Self.chromaWidth(width) }
    /// Height of the chroma planes: half the luma height, rounded up.
    public var chromaHeight: Int { Self.chromaHeight(height) }

    /// Whether the sizes are positive and every plane has exactly the bytes
    /// its size says: what the encoder checks before it reads the planes.
    public var hasValidPlanes: Bool {
        width > 0 && height > 0
            && y.count == width * height
            && u.count == chromaWidth * chromaHeight
            && v.count == chromaWidth * chromaHeight
    }

    static func chromaWidth(_ width: Int) -> Int { (max(0, width) + 1) / 2 }
    static func chromaHeight(_ height: Int) -> Int { (max(0, height) + 1) / 2 }
}
