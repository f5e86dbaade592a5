/// One PeerConnection as the media worker numbers it: a participant's
/// publisher connection or its subscriber connection. A plain integer so the
/// packet path never hashes a String (STYLE.md habit 5).
public struct TransportID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }
    @inlinable public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public var description: String { "T\(rawValue)" }
}

/// One published track as the media worker numbers it (the worker keeps the
/// map from Rooms' track SIDs to these).
public struct TrackID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }
    @inlinable public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public var description: String { "K\(rawValue)" }
}
