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
    /// `commit` finds the connection without a second table lookup.
    private var reserved: (slot: UnsafeMutableRawBufferPointer, connection: MediaConnection)?

    init(connections: MediaConnectionTable, egress: EgressQueue) {
        self.connections = connections
        self.egress = egress
    }

    mutating func slot(for transport: TransportID) -> UnsafeMutableRawBufferPointer? {
        // Not ready: the router counts the packet as dropped (`noSlot`).
        guard let connection = connections.byID[transport], connection.transport.isConnected,
            connection.transport.selectedAddress != nil
        else { return nil }
        let slot = egress.reserve()
        reserved = (slot, connection)
        return UnsafeMutableRawBufferPointer(rebasing: slot[0..<(slot.count - Self.srtpSpare)])
    }

    mutating func commit(transport: TransportID, length: Int, kind: EgressKind) {
        guard let (slot, connection) = reserved, connection.id == transport else { return }
        reserved = nil
        switch kind {
        case .rtp: queue(connection.transport.protectRTP(slot, length: length), on: connection)
        case .rtcp: queue(connection.transport.protectRTCP(slot, length: length), on: connection)
        }
    }

    /// Protects out of place: the header in the slot, the payload's tail
    /// encrypted from the ingress slot straight after it.
    mutating func commit(transport: TransportID, length: Int, appending tail: UnsafeRawBufferPointer) {
        guard let (slot, connection) = reserved, connection.id == transport else { return }
        reserved = nil
        queue(connection.transport.protectRTP(slot, length: length, appending: tail), on: connection)
    }

    /// Queues the reserved slot's `protected` bytes for the connection's
    /// selected address (a refused protect, nil, is counted by the transport).
    @inline(__always)
    private func queue(_ protected: Int?, on connection: MediaConnection) {
        guard let protected, let destination = connection.transport.selectedAddress else { return }
        if connection.selectedOverTCP {
            egress.commitFrame(length: protected, to: destination)
        } else {
            egress.commitDatagram(length: protected, to: destination)
        }
    }
}
