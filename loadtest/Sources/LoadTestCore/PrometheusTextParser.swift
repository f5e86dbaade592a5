/// Reads the Prometheus text exposition format (version 0.0.4) line by line:
/// `name{label="value",...} value [timestamp]`, `# HELP` / `# TYPE` comments
/// and blank lines. Written here rather than imported because the load tester
/// needs only samples, and a server that moves from its own writer to
/// swift-prometheus (issue 6) must still parse: label order, escapes
/// (`\\`, `\"`, `\n`), float values (`1.5e3`, `+Inf`, `NaN`) and trailing
/// timestamps are all accepted. A line that cannot be read is skipped and
/// counted, never fatal: one odd metric must not lose the whole report.
public enum PrometheusTextParser {
    /// Parses one line. Returns nil for comments, blank lines and lines that
    /// are not a valid sample (the caller tells those apart with `isSkippable`).
    public static func sample(fromLine line: Substring) -> MetricSample? {
        var cursor = Cursor(line.utf8)
        cursor.skipSpaces()
        guard let name = cursor.readName(), !name.isEmpty else { return nil }
        var labels: [String: String] = [:]
        if cursor.peek == UInt8(ascii: "{") {
            cursor.advance()
            guard let parsed = cursor.readLabels() else { return nil }
            labels = parsed
        }
        guard cursor.skipSpaces() > 0 else { return nil }
        guard let valueText = cursor.readToken(), let value = parseValue(valueText) else { return nil }
        cursor.skipSpaces()
        if !cursor.isAtEnd {
            // An optional integer timestamp (ms) and nothing after it.
            guard let stamp = cursor.readToken(), Int64(stamp) != nil else { return nil }
            cursor.skipSpaces()
            guard cursor.isAtEnd else { return nil }
        }
        return MetricSample(name: name, labels: labels, value: value)
    }

    /// Comments (`#`) and blank lines: skipped without counting as malformed.
    public static func isSkippable(_ line: Substring) -> Bool {
        let trimmed = line.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
        return trimmed.isEmpty || trimmed.first == "#"
    }

    /// Go's `strconv.ParseFloat` spellings the format allows, plus plain numbers.
    static func parseValue(_ text: String) -> Double? {
        switch text {
        case "+Inf", "Inf", "+inf", "inf": return .infinity
        case "-Inf", "-inf": return -.infinity
        case "NaN", "nan": return .nan
        default: return Double(text)
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

        /// After `{`: `name="value"` pairs separated by commas (a trailing
        /// comma allowed), through the closing `}`.
        mutating func readLabels() -> [String: String]? {
            var labels: [String: String] = [:]
            while true {
                skipSpaces()
                if peek == UInt8(ascii: "}") { advance(); return labels }
                guard let name = readName() else { return nil }
                skipSpaces()
                guard peek == UInt8(ascii: "=") else { return nil }
                advance()
                skipSpaces()
                guard peek == UInt8(ascii: "\"") else { return nil }
                advance()
                guard let value = readQuoted() else { return nil }
                labels[name] = value
                skipSpaces()
                if peek == UInt8(ascii: ",") { advance(); continue }
                guard peek == UInt8(ascii: "}") else { return nil }
                advance()
                return labels
            }
        }

        /// After the opening quote: the value through the closing quote, with
        /// `\\`, `\"` and `\n` unescaped.
        mutating func readQuoted() -> String? {
            var out: [UInt8] = []
            while let b = peek {
                advance()
                switch b {
                case UInt8(ascii: "\""):
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let escaped = peek else { return nil }
                    advance()
                    switch escaped {
                    case UInt8(ascii: "n"): out.append(UInt8(ascii: "\n"))
                    case UInt8(ascii: "\\"), UInt8(ascii: "\""): out.append(escaped)
                    default: out.append(UInt8(ascii: "\\")); out.append(escaped)
                    }
                default:
                    out.append(b)
                }
            }
            return nil
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
