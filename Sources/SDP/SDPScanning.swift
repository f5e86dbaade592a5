// Text helpers shared by the SDP parsers. They split at ASCII bytes on the
// UTF-8 view, never at Characters: "\r\n" is one Character in Swift, and a
// space followed by a combining mark would hide the space from a
// Character-level split. Every separator SDP uses is ASCII, so each piece is
// valid UTF-8 and slicing at those indices is always safe.

extension Substring {
    /// Splits at every `separator` byte, keeping empty pieces (so "a  b" gives
    /// three pieces and a caller can refuse the empty one).
    @usableFromInline
    func sdpSplit(_ separator: UInt8) -> [Substring] {
        var pieces: [Substring] = []
        var start = startIndex
        var index = utf8.startIndex
        while index != utf8.endIndex {
            if utf8[index] == separator {
                pieces.append(self[start..<index])
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        pieces.append(self[start..<endIndex])
        return pieces
    }

    /// Splits once at the first `separator` byte: (before, after), or nil when
    /// there is none.
    @usableFromInline
    func sdpSplitOnce(_ separator: UInt8) -> (Substring, Substring)? {
        guard let index = utf8.firstIndex(of: separator) else { return nil }
        return (self[startIndex..<index], self[utf8.index(after: index)..<endIndex])
    }

    /// Whether the text contains `byte`.
    @usableFromInline
    func sdpContains(_ byte: UInt8) -> Bool {
        utf8.contains(byte)
    }
}

/// A decimal number of ASCII digits only (no sign, no spaces), nil on anything
/// else or on overflow. Leading zeros are accepted here; the exact-text check
/// after a typed parse decides whether such a line stays typed.
@usableFromInline
func sdpDecimal<T: FixedWidthInteger & UnsignedInteger>(_ text: Substring, as type: T.Type = T.self) -> T? {
    guard !text.utf8.isEmpty, text.utf8.count <= 40 else { return nil }
    var value: T = 0
    for byte in text.utf8 {
        guard byte >= 0x30, byte <= 0x39 else { return nil }
        let (times10, o1) = value.multipliedReportingOverflow(by: 10)
        let (sum, o2) = times10.addingReportingOverflow(T(byte &- 0x30))
        guard !o1, !o2 else { return nil }
        value = sum
    }
    return value
}

/// Whether two texts are the same bytes (Swift's String `==` compares by
/// canonical equivalence, which is looser than "reproduces the line").
@usableFromInline
func sdpSameBytes(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
    a.utf8.elementsEqual(b.utf8)
}

/// Splits into space-separated tokens, refusing empty ones (double or
/// trailing spaces): SDP separates fields by exactly one space.
@usableFromInline
func sdpTokens(_ text: Substring) -> [Substring]? {
    let tokens = text.sdpSplit(0x20)
    for token in tokens where token.isEmpty { return nil }
    return tokens
}

/// Space-separated fields, skipping empty ones. `SDPAttribute` keeps a line
/// with odd spacing as `.other` before these parsers see it (see
/// `sdpHasOddSpacing`); the public `SDPCandidate(parsing:)` for trickled
/// candidates relies on this to accept a doubled space.
@usableFromInline
func sdpFields(_ text: Substring) -> [Substring] {
    text.sdpSplit(0x20).filter { !$0.isEmpty }
}

/// Whether non-empty text has an empty space-separated token: a leading or
/// trailing space, or two spaces in a row. A typed attribute cannot write
/// such a line back, so its parser returns nil and the line stays `.other`
/// with its exact text, rather than refusing the description or typing a
/// field with a stray space in it. Empty text is not odd spacing: `a=mid:`
/// is a malformed attribute and is refused.
@usableFromInline
func sdpHasOddSpacing(_ text: Substring) -> Bool {
    var previousWasSpace = true  // so a leading space counts
    for byte in text.utf8 {
        let isSpace = byte == 0x20
        if isSpace, previousWasSpace { return true }
        previousWasSpace = isSpace
    }
    return previousWasSpace && !text.isEmpty
}

extension SDPError {
    /// The same error, pinned to a line when it was raised without one.
    func at(line: Int) -> SDPError {
        self.line == 0 ? SDPError(line: line, reason) : self
    }
}
