/// Why a user-defined message was refused (PROTOCOL.md section 3.5). These
/// are HTTP-like codes sent in `messageFailed`, checked in this order.
/// A refused message uses no sequence number and does not count toward the rate.
public enum MessageRefusal: Error, Equatable, Hashable, Sendable, CaseIterable {
    /// 409: the sender has not joined (or is no longer in the room).
    case notJoined
    /// 400: content type other than `application/json`, or content that is not JSON.
    case invalidContent
    /// 413: content over the byte limit (10,240 UTF-8 bytes by default).
    case payloadTooLarge
    /// 429: more than the allowed accepted messages in the rolling window.
    case rateLimited

    /// The numeric code of `messageFailed`.
    public var code: Int {
        switch self {
        case .notJoined: 409
        case .invalidContent: 400
        case .payloadTooLarge: 413
        case .rateLimited: 429
        }
    }

    /// The `reason` string of `messageFailed`.
    public var reason: String {
        switch self {
        case .notJoined: "not-joined"
        case .invalidContent: "invalid-content"
        case .payloadTooLarge: "payload-too-large"
        case .rateLimited: "rate-limited"
        }
    }
}
