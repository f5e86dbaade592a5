import Packets

/// How a PeerTransport does ICE.
public enum ICEMode: Sendable, Hashable {
    /// ICE-lite (RFC 8445 section 2.5), the server's mode: answer the peer's
    /// checks, follow its nominations, send no checks of our own.
    case lite
    /// A controlling agent with one known remote candidate (tests and the
    /// client SDK): checks with USE-CANDIDATE every 50 ms until one
    /// succeeds, then consent checks every 5 s (RFC 7675).
    case controlling(remote: STUNAddress)
}
