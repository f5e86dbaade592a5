/// Why an m-line ended up rejected (port 0) in a negotiation.
public enum NegotiationRejection: Hashable, Sendable {
    /// The offer itself rejected it: port 0 without `a=bundle-only` (a
    /// removed track in a renegotiation, JSEP section 5.2.2).
    case offerRejected
    /// Not in the offer's BUNDLE group: everything shares one transport here.
    case notBundled
    /// Not audio or video (a data channel's `m=application`): the server
    /// carries no data channels.
    case unsupportedMedia
    /// Audio without Opus/48000/2, or video without VP8/90000. Whether that
    /// fails the publish (53404) depends on whether a track needs the m-line:
    /// see `PublishAnswer.requireCodecs(forMIDs:)`.
    case noSupportedCodec
    /// The client's answer rejected one of the server's offered m-lines.
    case answerRejected
}
