/// A `c=` line (RFC 8866 section 5.7): `c=<nettype> <addrtype> <connection-address>`.
/// The address keeps any multicast `/ttl/count` suffix as written.
public struct SDPConnection: Equatable, Hashable, Sendable {
    public var networkType: String
    public var addressType: String
    public var address: String

    public init(networkType: String = "IN", addressType: String = "IP4", address: String) {
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    /// Parses the value after `c=`.
    public init(parsing value: String) throws(SDPError) {
        try self.init(parsing: Substring(value))
    }

    init(parsing value: Substring) throws(SDPError) {
        guard let fields = sdpTokens(value), fields.count == 3 else {
            throw SDPError(line: 0, "bad c= line: expected '<nettype> <addrtype> <address>'")
        }
        self.init(networkType: String(fields[0]), addressType: String(fields[1]), address: String(fields[2]))
    }

    /// The value after `c=`.
    public var value: String { "\(networkType) \(addressType) \(address)" }
}
