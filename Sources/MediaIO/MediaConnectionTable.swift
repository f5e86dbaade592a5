import Packets
import SFU
import WebRTC

/// A worker's connections and how datagrams find them (DESIGN.md: demux by
/// first byte, then STUN username or 5-tuple): STUN by the local ufrag in
/// its USERNAME, everything else by its source, which only an authenticated
/// STUN check can add: a UDP datagram by its source address, an ICE-TCP
/// frame by its stream. Never a frame by its peer's address: behind one NAT
/// a client's TCP connection may have another client's UDP address.
final class MediaConnectionTable {
    private(set) var byID: [TransportID: MediaConnection] = [:]
    /// The same connections, unretained, for the packet path's one look-up
    /// per copy (`ConnectionSink`): no retain and release per packet. Sound
    /// because `byID` owns each one and an entry leaves both tables at once.
    private(set) var unretained: [TransportID: Unmanaged<MediaConnection>] = [:]
    var byUfrag: [UfragKey: TransportID] = [:]
    var byAddress: [STUNAddress: TransportID] = [:]
    /// ICE-TCP streams by their tag (never reused).
    var byStream: [UInt64: TransportID] = [:]
    var counters = MediaWorkerCounters()

    func add(_ connection: MediaConnection) {
        byID[connection.id] = connection
        unretained[connection.id] = Unmanaged.passUnretained(connection)
        if let key = UfragKey(connection.transport.localICE.ufrag) { byUfrag[key] = connection.id }
    }

    func remove(_ id: TransportID) {
        guard let connection = byID.removeValue(forKey: id) else { return }
        unretained[id] = nil
        byUfrag = byUfrag.filter { $0.value != id }
        byAddress = byAddress.filter { $0.value != id }
        byStream = byStream.filter { $0.value != id }
        connection.transport.close()
    }

    /// The connection a datagram belongs to, or nil (counted by the caller).
    @inline(__always)
    func lookup(_ datagram: UnsafeRawBufferPointer, from source: TransportPath) -> MediaConnection? {
        if datagram[0] < 4 {
            // STUN (RFC 7983: first byte 0-3): USERNAME is "local:remote".
            guard let message = try? STUNMessageView(validating: datagram), let username = message.username,
                let colon = username.firstIndex(of: UInt8(ascii: ":"))
            else { return nil }
            guard let key = UfragKey(UnsafeRawBufferPointer(rebasing: username[..<colon])) else { return nil }
            return byUfrag[key].flatMap { byID[$0] }
        }
        let id = source.stream == 0 ? byAddress[source.address] : byStream[source.stream]
        return id.flatMap { byID[$0] }
    }
}

/// What a worker dropped before or after the transports and routers saw it.
package struct MediaWorkerCounters: Sendable, Equatable {
    package var received: UInt64 = 0
    package var truncated: UInt64 = 0
    /// No connection for the STUN username or source address.
    package var unknownTuple: UInt64 = 0
    /// RTP on a subscriber connection, or for a room without a router.
    package var unexpected: UInt64 = 0
    /// Packets handed to other workers for the subscribers they hold of
    /// this worker's rooms (`RelayRing`), and those a full ring dropped.
    package var relayed: UInt64 = 0
    package var relayDropped: UInt64 = 0
    /// Relayed packets this worker took from others, and those for a room
    /// or publisher it no longer holds.
    package var relayReceived: UInt64 = 0
    package var relayUnknown: UInt64 = 0
}
