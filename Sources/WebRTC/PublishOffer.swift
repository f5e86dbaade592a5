import SDP

/// A client's offer on its publisher connection, size-checked and parsed
/// (PROTOCOL.md 3.2), before it is answered with `PublishNegotiation`.
public struct PublishOffer: Sendable {
    public let sdp: SessionDescription

    /// Throws 53403 for a description over 256 KiB or one that does not parse.
    public init(parsing text: String) throws(NegotiationError) {
        sdp = try NegotiationChecks.parse(text, what: "publish offer")
    }

    /// The mids of the audio and video m-lines the client offers to send
    /// on (in use, and `sendrecv` or `sendonly`): exactly one `tracks` entry
    /// of the `publish` must name each (PROTOCOL.md section 5).
    public var sendingMIDs: Set<String> {
        Set(
            sdp.media.filter { media in
                (media.kind == .audio || media.kind == .video) && (media.port != 0 || media.isBundleOnly)
                    && [.sendrecv, .sendonly].contains(media.direction(in: sdp))
            }.compactMap(\.mid))
    }
}
