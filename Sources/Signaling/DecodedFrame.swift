/// The codec's verdict on one client text frame (PROTOCOL.md section 1).
public enum DecodedFrame: Sendable, Equatable {
    /// A well-formed request and its `id`, if it carried one.
    case request(ClientMessage, id: String?)
    /// A well-formed object of an unknown `type` without an `id`: log it and
    /// move on (forward compatible; a newer client may send types we lack).
    case ignored(type: String)
    /// A frame that cannot be used: answer `error` with `id` (when the frame
    /// had a readable string `id`) and the error's code, 53003. `type`, when
    /// the frame had a readable one: a malformed `join` is a refused join,
    /// after which the server closes the socket (PROTOCOL.md section 1).
    case invalid(id: String?, SignalingError, type: String? = nil)
}
