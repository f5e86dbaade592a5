import Packets

/// The remote end of a candidate pair as the I/O layer sees it: the peer's
/// transport address and the local path its packets come on, the socket
/// the transport was made for (stream 0) or one ICE-TCP connection (the
/// I/O layer's nonzero tag for it).
///
/// The same address over UDP and over TCP are two candidates (RFC 6544):
/// behind one NAT they may be two different peers, so validation, the
/// selected pair and every answer keep the path with the address.
public struct TransportPath: Hashable, Sendable, CustomStringConvertible {
    public var address: STUNAddress
    /// 0: the transport's own socket (UDP on the server); otherwise the
    /// ICE-TCP connection's tag.
    public var stream: UInt64

    @inlinable
    public init(_ address: STUNAddress, stream: UInt64 = 0) {
        self.address = address
        self.stream = stream
    }

    public var description: String { stream == 0 ? "\(address)" : "\(address) (TCP stream \(stream))" }
}
