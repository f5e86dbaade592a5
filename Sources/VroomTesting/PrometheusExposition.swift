/// Prometheus' text format (version 0.0.4), parsed and checked the way a
/// Prometheus server reads it: for tests and tools that read `/metrics`.
/// Refused: a malformed line, a second `# TYPE` or `# HELP` for a family,
/// `# HELP` after `# TYPE`, a sample of an undeclared family or outside its
/// family's group of lines, a repeated sample, a bad label escape.
public struct PrometheusExposition: Sendable {
    public struct Sample: Sendable, Equatable {
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

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
            let sample = try Self.sample(line, number: number)
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

    static func sample(_ line: Substring, number: Int) throws(Problem) -> Sample {
        var rest = line[...]
        let name = rest.prefix { $0 != "{" && $0 != " " }
        guard isMetricName(name) else { throw Problem(line: number, reason: "bad sample name in \(line)") }
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let labelName = rest.prefix { $0 != "=" }
                guard isMetricName(labelName), !labelName.contains(":") else {
                    throw Problem(line: number, reason: "bad label name in \(line)")
                }
                rest = rest.dropFirst(labelName.count)
                guard rest.hasPrefix("=\"") else { throw Problem(line: number, reason: "label without a quoted value in \(line)") }
                rest = rest.dropFirst(2)
                var value = ""
                var closed = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if character == "\"" {
                        closed = true
                        break
                    }
                    if character == "\\" {
                        switch rest.first {
                        case "\\": value.append("\\")
                        case "\"": value.append("\"")
                        case "n": value.append("\n")
                        default: throw Problem(line: number, reason: "bad escape in \(line)")
                        }
                        rest = rest.dropFirst()
                    } else if character == "\n" {
                        throw Problem(line: number, reason: "raw line feed in a label value")
                    } else {
                        value.append(character)
                    }
                }
                guard closed else { throw Problem(line: number, reason: "unterminated label value in \(line)") }
                guard labels.updateValue(value, forKey: String(labelName)) == nil else {
                    throw Problem(line: number, reason: "repeated label \(labelName)")
                }
                if rest.first == "," { rest = rest.dropFirst() } else if rest.first != "}" {
                    throw Problem(line: number, reason: "expected , or } in \(line)")
                }
            }
            rest = rest.dropFirst()
        }
        let fields = rest.split(separator: " ", omittingEmptySubsequences: true)
        guard (1...2).contains(fields.count), let value = parseValue(fields[0]) else {
            throw Problem(line: number, reason: "bad value in \(line)")
        }
        if fields.count == 2, Int64(fields[1]) == nil { throw Problem(line: number, reason: "bad timestamp in \(line)") }
        return Sample(name: String(name), labels: labels, value: value)
    }

    static func parseValue(_ text: Substring) -> Double? {
        switch text {
        case "+Inf", "Inf": .infinity
        case "-Inf": -.infinity
        case "NaN": .nan
        default: Double(text)
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
