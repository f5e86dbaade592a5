/// The simulcast a publish offer's video m-line asked for and the answer
/// accepted (RFC 8853, PROTOCOL.md section 7): its layers in `a=simulcast`
/// order, lowest first. Each layer is one RTP stream the client tags with
/// the `sdes:rtp-stream-id` header extension (RFC 8852), and its RTX stream
/// with `sdes:repaired-rtp-stream-id`; an accepted simulcast always has the
/// first (`NegotiatedHeaderExtensions.rid`), RTX only with the second.
public struct NegotiatedSimulcast: Hashable, Sendable {
    /// One accepted layer: the first alternative of one `;`-separated
    /// stream of `a=simulcast:send`, with what its `a=rid` line restricts.
    public struct Layer: Hashable, Sendable {
        /// The RID (RFC 8851 `rid-id`): 1-16 of `A-Z a-z 0-9 - _`.
        public var rid: String
        /// `max-width` / `max-height` of the `a=rid` line (RFC 8851
        /// section 5), in pixels; nil when absent or not a decimal number.
        public var maxWidth: UInt32?
        public var maxHeight: UInt32?
        /// Written `~rid` in the offer: the client starts this layer paused
        /// (RFC 8853 section 5.1) and resumes it with a later offer. The
        /// answer keeps the `~`: the answerer does not resume a stream the
        /// offerer paused.
        public var paused: Bool

        public init(rid: String, maxWidth: UInt32? = nil, maxHeight: UInt32? = nil, paused: Bool = false) {
            self.rid = rid
            self.maxWidth = maxWidth
            self.maxHeight = maxHeight
            self.paused = paused
        }
    }

    /// Lowest first.
    public var layers: [Layer]

    /// The layers' RIDs, lowest first.
    public var rids: [String] { layers.map(\.rid) }

    public init(layers: [Layer]) {
        self.layers = layers
    }

    public init(rids: [String]) {
        self.init(layers: rids.map { Layer(rid: $0) })
    }

    /// Chromium and Firefox send at most three layers (quarter, half and
    /// full resolution), and PROTOCOL.md section 7's allocator is built for
    /// that; each layer costs the publisher's uplink and the server a
    /// receive stream, so an offer with more is refused, not trimmed.
    public static let maximumLayers = 3

    /// A RID rides in an RTP header extension on every packet of its
    /// stream: 16 bytes is the most a one-byte header element carries (RFC
    /// 8285 section 4.2), and Chromium's and Firefox's RIDs are 1-2
    /// characters. RFC 8852 allows up to 255; this server takes 16.
    public static let maximumRIDLength = 16
}
