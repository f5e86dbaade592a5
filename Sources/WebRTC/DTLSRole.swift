/// Which side of the DTLS handshake this end takes (RFC 5763 section 5):
/// the SDP `a=setup` attribute decides. The server supports both roles
/// (PROTOCOL.md section 5): `passive` in its answers to an `actpass` offer
/// makes it the server; an answer of `active`/`passive` to its own
/// `actpass` offers decides the other way.
public enum DTLSRole: Sendable, Hashable {
    case client
    case server
}
