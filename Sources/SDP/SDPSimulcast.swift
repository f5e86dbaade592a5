/// `a=simulcast:` (RFC 8853 section 5.1), e.g. `a=simulcast:send h;m;l` or
/// `a=simulcast:recv 1,~2;3 send 4`. The value is kept as written; the
/// send/recv lists are parsed from it: each list is a `;`-separated list of
/// streams, each a `,`-separated list of alternative rids, `~` meaning paused.
public struct SDPSimulcast: Equatable, Hashable, Sendable {
    /// One rid of an alternative list.
    public struct Layer: Equatable, Hashable, Sendable {
        public var rid: String
        public var paused: Bool

        public init(rid: String, paused: Bool = false) {
            self.rid = rid
            self.paused = paused
        }

        var text: String { (paused ? "~" : "") + rid }
    }

    /// The value after `a=simulcast:`, exactly as written.
    public let value: String
    /// Streams sent, each a list of alternatives.
    public let send: [[Layer]]
    /// Streams received, each a list of alternatives.
    public let recv: [[Layer]]

    /// Parses a value; nil when it does not follow RFC 8853's grammar.
    public init?(value: String) {
        let fields = Substring(value).sdpSplit(0x20)
        guard fields.count == 2 || fields.count == 4 else { return nil }
        var send: [[Layer]]?
        var recv: [[Layer]]?
        var index = 0
        while index < fields.count {
            guard let streams = SDPSimulcast.streams(fields[index + 1]) else { return nil }
            if sdpSameBytes(fields[index], "send"), send == nil {
                send = streams
            } else if sdpSameBytes(fields[index], "recv"), recv == nil {
                recv = streams
            } else {
                return nil
            }
            index += 2
        }
        self.value = value
        self.send = send ?? []
        self.recv = recv ?? []
    }

    /// Builds the value from lists (send first).
    public init(send: [[Layer]], recv: [[Layer]] = []) {
        func list(_ streams: [[Layer]]) -> String {
            streams.map { $0.map(\.text).joined(separator: ",") }.joined(separator: ";")
        }
        var parts: [String] = []
        if !send.isEmpty { parts.append("send " + list(send)) }
        if !recv.isEmpty { parts.append("recv " + list(recv)) }
        self.value = parts.joined(separator: " ")
        self.send = send
        self.recv = recv
    }

    private static func streams(_ text: Substring) -> [[Layer]]? {
        var result: [[Layer]] = []
        for stream in text.sdpSplit(UInt8(ascii: ";")) {
            var alternatives: [Layer] = []
            for id in stream.sdpSplit(UInt8(ascii: ",")) {
                let paused = id.utf8.first == UInt8(ascii: "~")
                let rid = paused ? id[id.utf8.index(after: id.utf8.startIndex)...] : id
                guard !rid.isEmpty, !rid.sdpContains(UInt8(ascii: "~")) else { return nil }
                alternatives.append(Layer(rid: String(rid), paused: paused))
            }
            result.append(alternatives)
        }
        return result
    }
}
