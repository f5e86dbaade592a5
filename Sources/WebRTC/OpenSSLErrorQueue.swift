import COpenSSL

/// OpenSSL's per-thread error queue. Every failing call leaves entries there;
/// read them into the error's message and leave the queue empty, so the next
/// handshake on this worker thread does not report a stale reason.
enum OpenSSLErrorQueue {
    /// The queued reasons joined with "; " (empty when none), queue cleared.
    static func drain() -> String {
        var reasons: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        while case let code = ERR_get_error(), code != 0 {
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return reasons.joined(separator: "; ")
    }

    /// Forgets entries left by an earlier call whose failure was handled.
    static func clear() {
        ERR_clear_error()
    }
}
