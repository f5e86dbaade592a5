/// Why a session description was refused. Signaling maps these to the
/// protocol's 534xx codes (53403 ServerRemoteDescFailed for a client's SDP the
/// server cannot apply).
public struct SDPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// 1-based line number in the description, 0 when not tied to a line.
    public var line: Int
    public var reason: String

    public init(line: Int, _ reason: String) {
        self.line = line
        self.reason = reason
    }

    public var description: String { line > 0 ? "SDP line \(line): \(reason)" : "SDP: \(reason)" }
}
