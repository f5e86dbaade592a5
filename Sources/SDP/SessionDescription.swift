/// A session description (RFC 8866 section 5): session-level lines, then
/// media sections. Parsed from and written to the exact text WebRTC peers
/// exchange:
///
///     v=0
///     o=<username> <sess-id> <sess-version> IN IP4 <address>
///     s=<session name>
///     [i= u= e=* p=* c= b=*] t=<start> <stop> [r=*] [z= k=] a=*
///     m=... (see MediaDescription)
///
/// `SessionDescription(parsing: text).text == text` for every description
/// whose lines are in RFC 8866 order with CRLF endings (LF-only input is
/// accepted and written back with CRLF), and `parse(x.text) == x` for every
/// parsed value: the fixtures captured from Chromium and aiortc are checked
/// byte for byte.
public struct SessionDescription: Equatable, Hashable, Sendable {
    /// `v=`; always 0 (RFC 8866 section 5.1).
    public var version: UInt32
    public var origin: SDPOrigin
    /// `s=`; WebRTC sends `-`.
    public var sessionName: String
    /// `i=`
    public var information: String?
    /// `u=`
    public var uri: String?
    /// `e=` lines.
    public var emails: [String]
    /// `p=` lines.
    public var phones: [String]
    public var connection: SDPConnection?
    public var bandwidths: [SDPBandwidth]
    /// `t=` lines with their `r=` lines; WebRTC sends one `t=0 0`.
    public var timings: [SDPTiming]
    /// `z=` (kept as written).
    public var timeZones: String?
    /// `k=` (obsolete, kept as written).
    public var encryptionKey: String?
    /// Session-level `a=` lines in order.
    public var attributes: [SDPAttribute]
    public var media: [MediaDescription]

    public init(
        version: UInt32 = 0, origin: SDPOrigin, sessionName: String = "-", information: String? = nil,
        uri: String? = nil, emails: [String] = [], phones: [String] = [], connection: SDPConnection? = nil,
        bandwidths: [SDPBandwidth] = [], timings: [SDPTiming] = [SDPTiming()], timeZones: String? = nil,
        encryptionKey: String? = nil, attributes: [SDPAttribute] = [], media: [MediaDescription] = []
    ) {
        self.version = version
        self.origin = origin
        self.sessionName = sessionName
        self.information = information
        self.uri = uri
        self.emails = emails
        self.phones = phones
        self.connection = connection
        self.bandwidths = bandwidths
        self.timings = timings
        self.timeZones = timeZones
        self.encryptionKey = encryptionKey
        self.attributes = attributes
        self.media = media
    }

    /// The description as text, every line ending in CRLF (RFC 8866 section 5).
    public var text: String {
        var text = ""
        text.reserveCapacity(64 + attributes.count * 40 + media.count * 2048)
        text += "v=\(version)\r\n"
        text += "o=\(origin.value)\r\n"
        text += "s=\(sessionName)\r\n"
        if let information { text += "i=\(information)\r\n" }
        if let uri { text += "u=\(uri)\r\n" }
        for email in emails { text += "e=\(email)\r\n" }
        for phone in phones { text += "p=\(phone)\r\n" }
        if let connection { text += "c=\(connection.value)\r\n" }
        for bandwidth in bandwidths { text += "b=\(bandwidth.text)\r\n" }
        for timing in timings {
            text += "t=\(timing.value)\r\n"
            for repeat_ in timing.repeats { text += "r=\(repeat_)\r\n" }
        }
        if let timeZones { text += "z=\(timeZones)\r\n" }
        if let encryptionKey { text += "k=\(encryptionKey)\r\n" }
        for attribute in attributes { text += "a=\(attribute.text)\r\n" }
        for section in media { section.write(to: &text) }
        return text
    }
}

// MARK: - Parsing

extension SessionDescription {
    /// Parses a description. Lines may end in CRLF or LF; empty lines are
    /// skipped. Throws an `SDPError` naming the 1-based line for: a first
    /// line that is not `v=0`, a line not of the form `<letter>=<value>`, an
    /// unknown line type, a line out of place (`r=` before `t=`, `s=` twice),
    /// a malformed `o=`/`c=`/`b=`/`t=`/`m=` line (an `m=` line needs at
    /// least one format, RFC 8866 section 5.14) or a malformed typed
    /// attribute, and a missing `o=` or `s=`.
    public init(parsing text: String) throws(SDPError) {
        var parser = SDPLineParser()
        var lineNumber = 0
        var start = text.utf8.startIndex
        let end = text.utf8.endIndex
        while start != end {
            let newline = text.utf8[start...].firstIndex(of: 0x0A) ?? end
            var lineEnd = newline
            if lineEnd != start, text.utf8[text.utf8.index(before: lineEnd)] == 0x0D {
                lineEnd = text.utf8.index(before: lineEnd)
            }
            lineNumber += 1
            let line = text[start..<lineEnd]
            if !line.isEmpty {
                do throws(SDPError) {
                    try parser.consume(line)
                } catch {
                    throw error.at(line: lineNumber)
                }
            }
            start = newline == end ? end : text.utf8.index(after: newline)
        }
        self = try parser.finish(lineCount: lineNumber)
    }
}

/// Builds a SessionDescription line by line, in RFC 8866 order.
struct SDPLineParser {
    private var version: UInt32?
    private var origin: SDPOrigin?
    private var sessionName: String?
    private var uri: String?
    private var emails: [String] = []
    private var phones: [String] = []
    private var timings: [SDPTiming] = []
    private var timeZones: String?
    /// i=, c=, b=, k= and a= of the session level.
    private var session = SessionLevelLines()
    private var media: [MediaDescription] = []

    mutating func consume(_ line: Substring) throws(SDPError) {
        let bytes = line.utf8
        guard bytes.count >= 2, bytes[bytes.index(after: bytes.startIndex)] == UInt8(ascii: "="),
              let type = bytes.first, type >= UInt8(ascii: "a"), type <= UInt8(ascii: "z")
        else { throw SDPError(line: 0, "expected '<letter>=<value>', got '\(line.prefix(40))'") }
        let value = line[bytes.index(bytes.startIndex, offsetBy: 2)...]

        guard let version else {
            guard type == UInt8(ascii: "v") else { throw SDPError(line: 0, "missing v= line: a description starts with v=0") }
            // RFC 8866 section 5.1 defines only version 0; another number
            // means a grammar this parser does not know.
            guard sdpSameBytes(value, "0") else {
                throw SDPError(line: 0, "bad v= line '\(line.prefix(40))': only v=0 is defined (RFC 8866 section 5.1)")
            }
            self.version = 0
            return
        }
        _ = version

        // After the first m= line every line but the next m= belongs to the last section.
        if !media.isEmpty, type != UInt8(ascii: "m") {
            guard try Self.consumeShared(type, value, into: &media[media.count - 1], level: "in a media section") else {
                throw SDPError(line: 0, "'\(Character(Unicode.Scalar(type)))=' line not allowed in a media section")
            }
            return
        }
        if try Self.consumeShared(type, value, into: &session, level: "at session level") { return }

        switch type {
        case UInt8(ascii: "m"):
            let section = try Self.exact(MediaDescription(parsingMediaLine: value), value, "m=") { $0.mediaLine }
            media.append(section)
        case UInt8(ascii: "o"):
            guard origin == nil else { throw SDPError(line: 0, "second o= line") }
            origin = try Self.exact(SDPOrigin(parsing: value), value, "o=") { $0.value }
        case UInt8(ascii: "s"):
            guard sessionName == nil else { throw SDPError(line: 0, "second s= line") }
            sessionName = String(value)
        case UInt8(ascii: "u"):
            guard uri == nil else { throw SDPError(line: 0, "second u= line") }
            uri = String(value)
        case UInt8(ascii: "e"):
            emails.append(String(value))
        case UInt8(ascii: "p"):
            phones.append(String(value))
        case UInt8(ascii: "t"):
            timings.append(try Self.exact(SDPTiming(parsing: value), value, "t=") { $0.value })
        case UInt8(ascii: "r"):
            guard !timings.isEmpty else { throw SDPError(line: 0, "r= line before any t= line") }
            timings[timings.count - 1].repeats.append(String(value))
        case UInt8(ascii: "z"):
            guard timeZones == nil else { throw SDPError(line: 0, "second z= line") }
            timeZones = String(value)
        case UInt8(ascii: "v"):
            throw SDPError(line: 0, "second v= line")
        default:
            throw SDPError(line: 0, "unknown line type '\(Character(Unicode.Scalar(type)))='")
        }
    }

    /// Consumes an i=, c=, b=, k= or a= line, which mean the same at session
    /// and media level (RFC 8866 sections 5.6-5.8, 5.12, 5.13); false for any
    /// other type. `level` ends "second i= line ..." errors.
    private static func consumeShared<Lines: SDPSharedLines>(
        _ type: UInt8, _ value: Substring, into lines: inout Lines, level: String
    ) throws(SDPError) -> Bool {
        func second(_ letter: String) -> SDPError { SDPError(line: 0, "second \(letter)= line \(level)") }
        switch type {
        case UInt8(ascii: "i"):
            guard lines.information == nil else { throw second("i") }
            lines.information = String(value)
        case UInt8(ascii: "c"):
            guard lines.connection == nil else { throw second("c") }
            lines.connection = try exact(SDPConnection(parsing: value), value, "c=") { $0.value }
        case UInt8(ascii: "b"):
            lines.bandwidths.append(try exact(SDPBandwidth(parsing: value), value, "b=") { $0.text })
        case UInt8(ascii: "k"):
            guard lines.encryptionKey == nil else { throw second("k") }
            lines.encryptionKey = String(value)
        case UInt8(ascii: "a"):
            lines.attributes.append(try SDPAttribute(parsing: value))
        default:
            return false
        }
        return true
    }

    func finish(lineCount: Int) throws(SDPError) -> SessionDescription {
        guard let version else { throw SDPError(line: lineCount == 0 ? 0 : 1, "missing v= line: empty description") }
        guard let origin else { throw SDPError(line: 0, "missing o= line") }
        guard let sessionName else { throw SDPError(line: 0, "missing s= line") }
        guard !timings.isEmpty else { throw SDPError(line: 0, "missing t= line") }
        return SessionDescription(
            version: version, origin: origin, sessionName: sessionName, information: session.information, uri: uri,
            emails: emails, phones: phones, connection: session.connection, bandwidths: session.bandwidths,
            timings: timings, timeZones: timeZones, encryptionKey: session.encryptionKey,
            attributes: session.attributes, media: media)
    }

    /// A structural line must be written back exactly: one space between
    /// fields, numbers without leading zeros. Anything else is refused rather
    /// than silently respelled.
    private static func exact<T>(
        _ parsed: @autoclosure () throws(SDPError) -> T, _ source: Substring, _ prefix: String,
        _ render: (T) -> String
    ) throws(SDPError) -> T {
        let value = try parsed()
        guard sdpSameBytes(render(value), source) else {
            throw SDPError(line: 0, "bad \(prefix) line: '\(source.prefix(60))' is not in canonical form (one space between fields, no leading zeros)")
        }
        return value
    }
}

/// The lines RFC 8866 allows, with the same meaning, at session level and
/// in a media section: one parser (`SDPLineParser.consumeShared`) fills both.
protocol SDPSharedLines {
    var information: String? { get set }
    var connection: SDPConnection? { get set }
    var bandwidths: [SDPBandwidth] { get set }
    var encryptionKey: String? { get set }
    var attributes: [SDPAttribute] { get set }
}

extension MediaDescription: SDPSharedLines {}

/// The session level's share of `SDPSharedLines` while parsing.
struct SessionLevelLines: SDPSharedLines {
    var information: String?
    var connection: SDPConnection?
    var bandwidths: [SDPBandwidth] = []
    var encryptionKey: String?
    var attributes: [SDPAttribute] = []
}

// MARK: - Accessors

extension SessionDescription {
    /// `a=group:BUNDLE ...` lines (RFC 8843).
    public var bundleGroups: [SDPGroup] {
        attributes.allValues(SDPAttribute.groupValue).filter(\.isBundle)
    }

    /// All `a=group:` lines.
    public var groups: [SDPGroup] {
        attributes.allValues(SDPAttribute.groupValue)
    }

    /// A session-level direction attribute (Firefox may put `a=sendrecv` here).
    public var direction: SDPDirection? { attributes.direction }

    public var isICELite: Bool { attributes.contains(.iceLite) }

    /// `a=msid-semantic:`
    public var msidSemantic: SDPMSIDSemantic? { attributes.msidSemantic }

    /// The media section whose `a=mid:` is `mid`.
    public func media(withMID mid: String) -> MediaDescription? {
        media.first { $0.mid == mid }
    }
}
