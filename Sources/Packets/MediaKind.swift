/// What a track carries: Opus audio or VP8 video. One type for the SFU's
/// receivers and down tracks, the client SDK's tracks (`TrackKind` there)
/// and its statistics; the raw value is the wire spelling of PROTOCOL.md
/// section 3 (`"kind":"audio"`).
///
/// Not the `<media>` field of an SDP m-line (`SDP.MediaKind`), which also
/// names `application` (data channels) and types Vroom does not know: an
/// m-line is syntax, a track's kind is what the media path forwards.
public enum MediaKind: String, Hashable, Sendable, CaseIterable, Codable {
    case audio
    case video
}
