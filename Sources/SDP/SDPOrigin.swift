/// The `o=` line (RFC 8866 section 5.2):
/// `o=<username> <sess-id> <sess-version> <nettype> <addrtype> <unicast-address>`.
///
/// Chromium writes `o=- 6997473182277090190 2 IN IP4 127.0.0.1`, aiortc
/// `o=- 4004243105 4004243105 IN IP4 0.0.0.0`. The session id stays text: it
/// is only compared, and some stacks send ids with leading zeros.
public struct SDPOrigin: Equatable, Hashable, Sendable {
    public var username: String
    public var sessionID: String
    /// Incremented by the sender on every changed description.
    public var sessionVersion: UInt64
    public var networkType: String
    public var addressType: String
    public var address: String

    public init(
        username: String = "-", sessionID: String, sessionVersion: UInt64,
        networkType: String = "IN", addressType: String = "IP4", address: String = "0.0.0.0"
    ) {
        self.username = username
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    /// Parses the value after `o=`.
    public init(parsing value: String) throws(SDPError) {
        try self.init(parsing: Substring(value))
    }

    init(parsing value: Substring) throws(SDPError) {
        guard let fields = sdpTokens(value), fields.count == 6,
              let version = sdpDecimal(fields[2], as: UInt64.self)
        else { throw SDPError(line: 0, "bad o= line: expected 6 fields '<user> <id> <version> IN IP4 <address>'") }
        self.init(
            username: String(fields[0]), sessionID: String(fields[1]), sessionVersion: version,
            networkType: String(fields[3]), addressType: String(fields[4]), address: String(fields[5]))
    }

    /// The value after `o=`.
    public var value: String {
        "\(username) \(sessionID) \(sessionVersion) \(networkType) \(addressType) \(address)"
    }
}
