import Packets
import SFU
import WebRTC

/// The `PacketSink` the routers write into: the worker's egress queue. Each
/// packet is written into a queue slot and SRTP-protected there (a
/// forwarded packet's payload encrypted straight in from its ingress slot),
/// and queued for `sendmmsg` to the connection's selected address (or, on
/// an ICE-TCP path, framed into its stream's write buffer).
struct ConnectionSink: PacketSink {
    /// SRTP's largest trailer (SRTP_MAX_TRAILER_LEN): the router may fill a
    /// slot up to this much short of its end.
    static let srtpSpare = 144

    let connections: MediaConnectionTable
    let egress: EgressQueue
    /// The slot `slot(for:)` handed out and the connection it was for, so
    /// `commit` finds the connection without a second table lookup. Held
    /// unretained, so no retain and release per copy: sound because the
    /// table owns the connection, `commit` uses it only for the transport
    /// it was reserved for, and nothing removes a connection between a
    /// `slot` and its `commit` (the router calls them back to back on the
    /// worker's thread; removals are jobs between batches).
    private var reserved: (
        slot: UnsafeMutableRawBufferPointer, transport: TransportID, connection: Unmanaged<MediaConnection>
    )?

    init(connections: MediaConnectionTable, egress: EgressQueue) {
        self.connections = connections
        self.egress = egress
    }

    mutating func slot(for transport: TransportID) -> UnsafeMutableRawBufferPointer? {
        // A slot handed out and never committed (a write that failed) is
        // forgotten here, so no later commit can reach it.
        reserved = nil
        // Not ready: the router counts the packet as dropped (`noSlot`).
        guard let connection = connections.unretained[transport],
            connection._withUnsafeGuaranteedRef({ $0.transport.isConnected && $0.transport.selectedAddress != nil })
        else { return nil }
        let slot = egress.reserve()
        reserved = (slot, transport, connection)
        return UnsafeMutableRawBufferPointer(rebasing: slot[0..<(slot.count - Self.srtpSpare)])
    }

    mutating func commit(transport: TransportID, length: Int, kind: EgressKind) {
        guard let (slot, reservedTransport, connection) = reserved, reservedTransport == transport else { return }
        reserved = nil
        queue(connection._withUnsafeGuaranteedRef { connection in
            let protected = switch kind {
            case .rtp: connection.transport.protectRTP(slot, length: length)
            case .rtcp: connection.transport.protectRTCP(slot, length: length)
            }
            return (protected, connection.transport.selectedPath)
        })
    }

    /// Protects out of place: the header in the slot, the payload's tail
    /// encrypted from the ingress slot straight after it.
    mutating func commit(transport: TransportID, length: Int, appending tail: UnsafeRawBufferPointer) {
        guard let (slot, reservedTransport, connection) = reserved, reservedTransport == transport else { return }
        reserved = nil
        queue(connection._withUnsafeGuaranteedRef { connection in
            (connection.transport.protectRTP(slot, length: length, appending: tail), connection.transport.selectedPath)
        })
    }

    /// Queues the reserved slot's `protected` bytes for the connection's
    /// selected path (a refused protect, nil, is counted by the
    /// transport). The closures above return what this needs rather than
    /// call it: capturing the sink there cost a retain and release of its
    /// tables per copy.
    @inline(__always)
    private func queue(_ packet: (protected: Int?, destination: TransportPath?)) {
        guard let protected = packet.protected, let destination = packet.destination else { return }
        egress.commit(length: protected, to: destination)
    }
}
