/// `a=rid:<id> <send|recv> [<restrictions>]` (RFC 8851 section 10), e.g.
/// `a=rid:h send max-width=1280;max-height=720`.
public struct SDPRID: Equatable, Hashable, Sendable {
    public enum Direction: String, Equatable, Hashable, Sendable {
        case send
        case recv
    }

    public var id: String
    public var direction: Direction
    /// `pt=...;max-width=...` as written; nil when absent.
    public var restrictions: String?

    public init(id: String, direction: Direction, restrictions: String? = nil) {
        self.id = id
        self.direction = direction
        self.restrictions = restrictions
    }

    init(parsing value: Substring) throws(SDPError) {
        let fields = sdpFields(value)
        guard fields.count == 2 || fields.count == 3, !fields[0].isEmpty,
              let direction = Direction(rawValue: String(fields[1]))
        else { throw SDPError(line: 0, "bad rid attribute: expected '<id> send|recv [<restrictions>]'") }
        self.init(id: String(fields[0]), direction: direction, restrictions: fields.count == 3 ? String(fields[2]) : nil)
    }

    /// The text after `a=rid:`.
    public var value: String { "\(id) \(direction.rawValue)" + (restrictions.map { " \($0)" } ?? "") }
}
