import Packets
import SFU
import WebRTC

/// The media plane's names for a room, a participant and a published track:
/// plain integers that `Node` hands out and maps to and from the SIDs of
/// Rooms (DESIGN.md, "Layers"). The packet path keys its tables by these,
/// so no String is hashed per packet, and MediaIO needs nothing of the
/// room's semantics.
public struct RoomHandle: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }
    public var description: String { "R\(rawValue)" }
}

/// A participant, as the media plane knows it (see `RoomHandle`).
public struct ParticipantHandle: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }
    public var description: String { "P\(rawValue)" }
}

/// A published track, as the media plane knows it (see `RoomHandle`). The
/// router numbers its receivers with the same integer (`TrackID`).
public struct TrackHandle: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }
    public var description: String { "T\(rawValue)" }

    var trackID: TrackID { TrackID(rawValue) }
}

/// What a track carries, as the layers above name it without importing
/// Packets (one type: `Packets.MediaKind`).
public typealias MediaTrackKind = Packets.MediaKind

/// A network quality warning as the SFU's monitor raises it (PROTOCOL.md 3.8).
public typealias MediaQualityWarning = QualityWarning

/// A negotiation or connection failure with its protocol code (PROTOCOL.md
/// section 4); one type, WebRTC's, named here for the layers above.
public typealias MediaError = WebRTCError


/// A video track's priority (PROTOCOL.md section 7), the SFU's type.
public typealias MediaTrackPriority = TrackPriority

/// Why a subscribed video track is switched off (PROTOCOL.md section 7).
public typealias MediaSwitchOffReason = SwitchOffReason

/// A subscriber's bandwidth profile as the stream allocator takes it
/// (PROTOCOL.md section 7), with its mode and switch-off mode.
public typealias MediaAllocationProfile = AllocationProfile
public typealias MediaAllocationMode = AllocationMode
public typealias MediaTrackSwitchOffMode = TrackSwitchOffMode

/// One simulcast layer of a published track (PROTOCOL.md section 7).
public typealias MediaSimulcastLayer = SimulcastLayer
