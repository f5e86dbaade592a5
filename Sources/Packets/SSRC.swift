/// A synchronization source identifier (RFC 3550 section 3): the 32-bit
/// number that names one RTP stream. A type of its own so an SSRC is never
/// confused with a timestamp or a sequence number across module boundaries.
public struct SSRC: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32

    @inlinable
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    @inlinable
    public init(_ rawValue: UInt32) {
        self.rawValue = rawValue
    }

    public var description: String { String(rawValue) }
}
