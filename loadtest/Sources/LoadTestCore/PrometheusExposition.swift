/// Prometheus' text format (version 0.0.4), the one reader of `/metrics`
/// text: the load tester's scrapes (`MetricsSnapshot`, which skips and counts
/// a bad line so one odd metric cannot lose a report) and the tests that
/// check the server's exposition the way a Prometheus server reads it. It
/// lives in LoadTestCore because the load tester is a shipped product and
/// may not link VroomTesting (DESIGN.md); tests may import LoadTestCore.
///
/// `init(parsing:)` refuses a malformed line, a second `# TYPE` or `# HELP`
/// for a family, `# HELP` after `# TYPE`, a sample of an undeclared family or
/// outside its family's group of lines, a repeated sample, a bad label escape.
public struct PrometheusExposition: Sendable {
    public typealias Sample = MetricSample

    public struct Family: Sendable, Equatable {
        public var name: String
        public var type: String
        public var help: String?
        public var samples: [Sample] = []
    }

    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
        public init(line: Int, reason: String) {
            self.line = line
            self.reason = reason
        }
    }

    /// By family name, in order of appearance in `order`.
    public private(set) var families: [String: Family] = [:]
    public private(set) var order: [String] = []

    public init(parsing text: String) throws(Problem) {
        var current: String?
        var closed: Set<String> = []
        var seen: Set<String> = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.trimmingWhitespace.isEmpty { continue }
            if line.hasPrefix("#") {
                let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: true)
                guard parts.count >= 3, parts[1] == "HELP" || parts[1] == "TYPE" else { continue }  // a comment
                let name = String(parts[2])
                guard Self.isMetricName(name) else { throw Problem(line: number, reason: "bad metric name \(name)") }
                if let current, current != name { closed.insert(current) }
                guard !closed.contains(name) else { throw Problem(line: number, reason: "\(name) declared apart from its samples") }
                current = name
                if parts[1] == "HELP" {
                    guard families[name] == nil else { throw Problem(line: number, reason: "HELP for \(name) after its TYPE or twice") }
                    helps[name, default: []].append(parts.count > 3 ? String(parts[3]) : "")
                    guard helps[name]!.count == 1 else { throw Problem(line: number, reason: "second HELP for \(name)") }
                } else {
                    guard parts.count == 4, Self.types.contains(String(parts[3])) else {
                        throw Problem(line: number, reason: "bad TYPE line")
                    }
                    guard families[name] == nil else { throw Problem(line: number, reason: "second TYPE for \(name)") }
                    families[name] = Family(name: name, type: String(parts[3]), help: helps[name]?.first)
                    order.append(name)
                }
                continue
            }
            let sample = try Self.sample(fromLine: line, number: number)
            guard let family = family(of: sample.name) else {
                throw Problem(line: number, reason: "sample \(sample.name) of no declared family")
            }
            if let current, current != family { closed.insert(current) }
            guard !closed.contains(family) else { throw Problem(line: number, reason: "\(sample.name) outside its family's lines") }
            current = family
            let key = sample.name + "{" + sample.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
            guard seen.insert(key).inserted else { throw Problem(line: number, reason: "repeated sample \(key)}") }
            families[family]!.samples.append(sample)
        }
    }

    private var helps: [String: [String]] = [:]
    static let types: Set<String> = ["counter", "gauge", "histogram", "summary", "untyped"]

    /// The family a sample name belongs to (a histogram's `_bucket`, `_sum`
    /// and `_count`, a summary's `_sum` and `_count`).
    func family(of sample: String) -> String? {
        if families[sample] != nil { return sample }
        for suffix in ["_bucket", "_sum", "_count"] where sample.hasSuffix(suffix) {
            let base = String(sample.dropLast(suffix.count))
            guard let family = families[base] else { continue }
            if family.type == "histogram" || (family.type == "summary" && suffix != "_bucket") { return base }
        }
        return nil
    }

    /// The value of the sample `name` with exactly `labels`.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        guard let family = family(of: name) else { return nil }
        return families[family]?.samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// The sum of every sample named `name` (all label sets).
    public func sum(_ name: String) -> Double {
        guard let family = family(of: name) else { return 0 }
        return families[family]?.samples.filter { $0.name == name }.reduce(0) { $0 + $1.value } ?? 0
    }

    static func isMetricName(_ name: some StringProtocol) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIILetter || first == "_" || first == ":" else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" || $0 == ":" }
    }

    /// Reads one sample line: `name{label="value",...} value [timestamp]`,
    /// labels in any order (a trailing comma allowed, as Prometheus allows
    /// it), values as Go's `strconv.ParseFloat` spells them (`1.5e3`, `+Inf`,
    /// `NaN`), an optional integer timestamp in milliseconds, `\r` at the end.
    public static func sample(fromLine line: Substring, number: Int = 0) throws(Problem) -> Sample {
        func refuse(_ reason: String) -> Problem { Problem(line: number, reason: "\(reason) in \(line)") }
        var cursor = Cursor(line.utf8)
        cursor.skipSpaces()
        guard let name = cursor.readName() else { throw refuse("bad sample name") }
        var labels: [String: String] = [:]
        if cursor.peek == UInt8(ascii: "{") {
            cursor.advance()
            while true {
                cursor.skipSpaces()
                if cursor.peek == UInt8(ascii: "}") { break }
                guard let labelName = cursor.readName(), !labelName.contains(":") else { throw refuse("bad label name") }
                cursor.skipSpaces()
                guard cursor.peek == UInt8(ascii: "=") else { throw refuse("label without a value") }
                cursor.advance()
                cursor.skipSpaces()
                guard cursor.peek == UInt8(ascii: "\"") else { throw refuse("label without a quoted value") }
                cursor.advance()
                let value = try cursor.readQuoted(refuse)
                guard labels.updateValue(value, forKey: labelName) == nil else { throw refuse("repeated label \(labelName)") }
                cursor.skipSpaces()
                if cursor.peek == UInt8(ascii: ",") {
                    cursor.advance()
                } else if cursor.peek != UInt8(ascii: "}") {
                    throw refuse("expected , or }")
                }
            }
            cursor.advance()
        }
        guard cursor.skipSpaces() > 0, let valueText = cursor.readToken(), let value = parseValue(valueText) else {
            throw refuse("bad value")
        }
        cursor.skipSpaces()
        if !cursor.isAtEnd {
            guard let stamp = cursor.readToken(), Int64(stamp) != nil else { throw refuse("bad timestamp") }
            cursor.skipSpaces()
            guard cursor.isAtEnd else { throw refuse("text after the timestamp") }
        }
        return Sample(name: name, labels: labels, value: value)
    }

    /// Comments (`#`) and blank lines, which hold no sample.
    public static func isSkippable(_ line: Substring) -> Bool {
        let trimmed = line.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
        return trimmed.isEmpty || trimmed.first == "#"
    }

    static func parseValue(_ text: String) -> Double? {
        switch text {
        case "+Inf", "Inf", "+inf", "inf": .infinity
        case "-Inf", "-inf": -.infinity
        case "NaN", "nan": .nan
        default: Double(text)
        }
    }

    /// A forward-only reader over a line's UTF-8 bytes.
    struct Cursor {
        let bytes: [UInt8]
        var index = 0

        init(_ view: Substring.UTF8View) { bytes = Array(view) }

        var isAtEnd: Bool { index >= bytes.count }
        var peek: UInt8? { isAtEnd ? nil : bytes[index] }
        mutating func advance() { index += 1 }

        @discardableResult
        mutating func skipSpaces() -> Int {
            let start = index
            while let b = peek, b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == UInt8(ascii: "\r") { advance() }
            return index - start
        }

        /// `[a-zA-Z_:][a-zA-Z0-9_:]*`
        mutating func readName() -> String? {
            let start = index
            while let b = peek, Self.isNameByte(b, first: index == start) { advance() }
            return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
        }

        /// Up to the next space or the end.
        mutating func readToken() -> String? {
            let start = index
            while let b = peek, b != UInt8(ascii: " "), b != UInt8(ascii: "\t"), b != UInt8(ascii: "\r") { advance() }
            return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
        }

        /// After the opening quote: the value through the closing quote, with
        /// `\\`, `\"` and `\n` unescaped; any other escape is refused.
        mutating func readQuoted(_ refuse: (String) -> Problem) throws(Problem) -> String {
            var out: [UInt8] = []
            while let b = peek {
                advance()
                switch b {
                case UInt8(ascii: "\""):
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    switch peek {
                    case UInt8(ascii: "n"): out.append(UInt8(ascii: "\n"))
                    case UInt8(ascii: "\\"), UInt8(ascii: "\""): out.append(peek!)
                    default: throw refuse("bad escape")
                    }
                    advance()
                case UInt8(ascii: "\n"):
                    throw refuse("raw line feed in a label value")
                default:
                    out.append(b)
                }
            }
            throw refuse("unterminated label value")
        }

        static func isNameByte(_ b: UInt8, first: Bool) -> Bool {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "_"), UInt8(ascii: ":"):
                return true
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                return !first
            default:
                return false
            }
        }
    }
}

extension Substring {
    fileprivate var trimmingWhitespace: Substring {
        drop { $0 == " " || $0 == "\t" }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
