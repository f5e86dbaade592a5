/// A `t=` line and the `r=` lines that follow it (RFC 8866 sections 5.9,
/// 5.10). WebRTC always sends `t=0 0`: an unbounded session.
public struct SDPTiming: Equatable, Hashable, Sendable {
    /// NTP seconds; 0 means unbounded.
    public var start: UInt64
    public var stop: UInt64
    /// The `r=` values, kept as written (they are not used by WebRTC).
    public var repeats: [String]

    public init(start: UInt64 = 0, stop: UInt64 = 0, repeats: [String] = []) {
        self.start = start
        self.stop = stop
        self.repeats = repeats
    }

    init(parsing value: Substring) throws(SDPError) {
        guard let fields = sdpTokens(value), fields.count == 2,
              let start = sdpDecimal(fields[0], as: UInt64.self),
              let stop = sdpDecimal(fields[1], as: UInt64.self)
        else { throw SDPError(line: 0, "bad t= line: expected '<start> <stop>'") }
        self.init(start: start, stop: stop)
    }

    /// The value after `t=`.
    public var value: String { "\(start) \(stop)" }
}
