/// ICE short-term credentials of one side of a PeerConnection (RFC 8445
/// section 5.3): `a=ice-ufrag` / `a=ice-pwd`. A STUN check's USERNAME is
/// "receiver ufrag:sender ufrag" and its MESSAGE-INTEGRITY is keyed with the
/// receiver's password.
public struct ICECredentials: Hashable, Sendable {
    public var ufrag: String
    public var password: String

    public init(ufrag: String, password: String) {
        self.ufrag = ufrag
        self.password = password
    }

    /// Fresh credentials: an 8-character ufrag and a 24-character password
    /// from the ice-char alphabet (RFC 8839 section 5.4 asks at least 4 and
    /// 22 characters; 24 gives 143 bits of entropy).
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> ICECredentials {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        func draw(_ count: Int) -> String {
            String((0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
        }
        return ICECredentials(ufrag: draw(8), password: draw(24))
    }

    public static func random() -> ICECredentials {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }
}
