/// A video codec a `LocalVideoTrack` may be sent with, as Twilio's
/// `ConnectOptions.preferredVideoCodecs` lists them
/// (`[.vp8(simulcast: true)]`). The SDK encodes VP8 only.
public enum VideoCodec: Sendable, Hashable {
    /// VP8; `simulcast` publishes three layers (1/4, 1/2 and full scale of
    /// the camera, RIDs "q", "h", "f"; PROTOCOL.md section 7).
    case vp8(simulcast: Bool = false)

    var isSimulcast: Bool {
        switch self {
        case .vp8(let simulcast): simulcast
        }
    }
}
