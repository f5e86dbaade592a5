/// The simulcast a publish offer's video m-line asked for and the answer
/// accepted (RFC 8853, PROTOCOL.md section 7): its layers' RIDs in
/// `a=simulcast` order, lowest first.
public struct NegotiatedSimulcast: Hashable, Sendable {
    public var rids: [String]

    public init(rids: [String]) {
        self.rids = rids
    }
}
