import SDP

/// The RID simulcast one m-line of a publish offer asks to send (RFC 8853
/// `a=simulcast:send`, RFC 8851 `a=rid`), checked once; what is accepted
/// of it is decided in `PublishNegotiation.negotiate`.
///
///     a=rid:q send
///     a=rid:h send max-width=640;max-height=360
///     a=rid:f send
///     a=simulcast:send q;h;f
///
/// Reading (PROTOCOL.md section 7):
/// - the layers are the `;`-separated streams of the send list, in order,
///   first = lowest; of a `,`-separated group of alternatives the first is
///   taken (the others are left out of the answer, RFC 8853 section 5.3);
/// - a `~` (paused) layer is a layer like the others, marked `paused`;
/// - the recv list (the client asking to receive simulcast) is ignored:
///   the server sends one stream per track; an offer with only a recv list
///   has no simulcast to accept;
/// - `a=rid` lines without `a=simulcast` are ignored (one layer).
///
/// Refused (53403, nothing changes), because the server could not route
/// what the client would send, or the text is not what RFC 8851/8853 allow:
/// `a=simulcast` on a non-video m-line, twice, or not parsing; an `a=rid`
/// line that does not parse; two `a=rid` lines with one id; an id that is
/// not an RFC 8851 token (`A-Z a-z 0-9 - _`) or is longer than
/// `NegotiatedSimulcast.maximumRIDLength`; one id twice in `a=simulcast`;
/// an id in the send list without its `a=rid` line, or whose line says
/// `recv`; more than `NegotiatedSimulcast.maximumLayers` layers; a `pt=`
/// restriction that is not a list of payload types.
struct SimulcastOffer: Hashable, Sendable {
    /// One layer and the payload types its `a=rid` line allows (nil: any).
    struct Layer: Hashable, Sendable {
        var layer: NegotiatedSimulcast.Layer
        var payloadTypes: [UInt8]?
    }

    /// Lowest first.
    var layers: [Layer]

    /// nil when `media` has no `a=simulcast` send list.
    init?(validating media: MediaDescription, mid: String, what: String) throws(NegotiationError) {
        let lines = media.attributes.filter { $0.name == "simulcast" }
        guard !lines.isEmpty else { return nil }
        func refuse(_ reason: String) -> NegotiationError {
            .serverRemoteDescFailed("\(what): mid '\(mid)': \(reason)")
        }
        guard media.kind == .video else { throw refuse("a=simulcast on a \(media.kind) m-line (video only)") }
        guard lines.count == 1, let simulcast = media.simulcast else {
            throw refuse(lines.count == 1 ? "a=simulcast does not parse (RFC 8853 section 5.1)" : "a=simulcast appears \(lines.count) times")
        }
        // A typed a=rid line is written back exactly; anything else named
        // `rid` was kept as `.other` by the parser (odd spacing).
        guard media.attributes.filter({ $0.name == "rid" }).count == media.rids.count else {
            throw refuse("an a=rid line does not parse (RFC 8851 section 10)")
        }
        var declared: [String: SDPRID] = [:]
        for rid in media.rids {
            guard Self.isRID(rid.id) else { throw refuse("rid '\(rid.id)' is not 1-\(NegotiatedSimulcast.maximumRIDLength) of A-Z a-z 0-9 - _") }
            guard declared.updateValue(rid, forKey: rid.id) == nil else { throw refuse("a=rid:\(rid.id) appears twice") }
        }
        var named = Set<String>()
        for alternative in (simulcast.send + simulcast.recv).joined() where !named.insert(alternative.rid).inserted {
            throw refuse("rid '\(alternative.rid)' appears twice in a=simulcast")
        }
        guard !simulcast.send.isEmpty else { return nil }
        guard simulcast.send.count <= NegotiatedSimulcast.maximumLayers else {
            throw refuse("a=simulcast sends \(simulcast.send.count) layers; at most \(NegotiatedSimulcast.maximumLayers)")
        }
        for alternative in simulcast.send.joined() {
            guard Self.isRID(alternative.rid) else { throw refuse("rid '\(alternative.rid)' in a=simulcast is not an RFC 8851 token") }
            guard let line = declared[alternative.rid] else { throw refuse("a=simulcast names rid '\(alternative.rid)', which has no a=rid line") }
            guard line.direction == .send else { throw refuse("a=simulcast:send names rid '\(alternative.rid)', whose a=rid line says recv") }
        }
        var layers: [Layer] = []
        for stream in simulcast.send {
            guard let first = stream.first, let line = declared[first.rid] else { continue }  // checked above
            let restrictions = try Self.restrictions(line.restrictions, refuse: refuse)
            layers.append(
                Layer(
                    layer: NegotiatedSimulcast.Layer(
                        rid: first.rid, maxWidth: restrictions.maxWidth, maxHeight: restrictions.maxHeight,
                        paused: first.paused),
                    payloadTypes: restrictions.payloadTypes))
        }
        self.layers = layers
    }

    /// RFC 8851 section 10: `rid-id = 1*(alpha-numeric / "-" / "_")`,
    /// capped at `NegotiatedSimulcast.maximumRIDLength`.
    static func isRID(_ id: String) -> Bool {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= NegotiatedSimulcast.maximumRIDLength else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                true
            default: false
            }
        }
    }

    /// The parts of `pt=96,97;max-width=1280;max-height=720` (RFC 8851
    /// section 5) the server uses. Other keys (`max-fps`, `max-br`, ...) are
    /// the client's own limits and do not change routing; a width or height
    /// that is not a decimal number is ignored. A bad `pt=` is refused: it
    /// decides which layers the answer can accept.
    static func restrictions(
        _ text: String?, refuse: (String) -> NegotiationError
    ) throws(NegotiationError) -> (payloadTypes: [UInt8]?, maxWidth: UInt32?, maxHeight: UInt32?) {
        var result: (payloadTypes: [UInt8]?, maxWidth: UInt32?, maxHeight: UInt32?) = (nil, nil, nil)
        guard let text else { return result }
        for item in text.split(separator: ";") {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "pt":
                var types: [UInt8] = []
                for field in parts[1].split(separator: ",", omittingEmptySubsequences: false) {
                    guard let type = UInt8(field), type <= 127 else { throw refuse("a=rid restriction '\(item)' is not a list of payload types") }
                    types.append(type)
                }
                result.payloadTypes = types
            case "max-width": result.maxWidth = UInt32(parts[1])
            case "max-height": result.maxHeight = UInt32(parts[1])
            default: continue
            }
        }
        return result
    }
}
