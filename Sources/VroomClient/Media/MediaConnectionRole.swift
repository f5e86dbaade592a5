/// Which of the client's two PeerConnections (PROTOCOL.md 3.1): the one it
/// publishes on (client offers) or the one it receives on (server offers).
enum MediaConnectionRole: Hashable, Sendable {
    case publisher
    case subscriber
}
