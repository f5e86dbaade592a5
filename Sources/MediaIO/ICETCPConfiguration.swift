/// ICE-TCP on the media workers (PROTOCOL.md section 9; RFC 6544 passive
/// candidates): each worker listens on TCP at its UDP port number.
public struct ICETCPConfiguration: Sendable {
    /// Listen on TCP and announce passive TCP candidates.
    public var enabled: Bool
    /// A stream must carry an authenticated STUN Binding request this soon
    /// after it was accepted, or it is closed: 10 s is ample for a real
    /// client (its first check follows the connect within milliseconds)
    /// and bounds what idle connections cost.
    public var handshakeTimeoutSeconds: Double
    /// Streams not yet authenticated, per worker: one more evicts the
    /// oldest, which had the most time. 256 x (a 4 KiB read buffer + one
    /// descriptor) is about 1 MiB at worst.
    public var maximumUnauthenticated: Int
    /// Frames waiting in user space per stream before whole frames are
    /// dropped: 256 KiB is about 1 s of 2 Mbit/s, beyond which late video
    /// is useless to a real-time receiver.
    public var writeBufferBytes: Int
    /// SO_SNDBUF of each stream (0 keeps the kernel's autotuning, which lets
    /// a slow reader queue several MB: seconds of delay). 128 KiB here; the
    /// kernel doubles it.
    public var socketSendBufferBytes: Int

    public init(
        enabled: Bool = true, handshakeTimeoutSeconds: Double = 10, maximumUnauthenticated: Int = 256,
        writeBufferBytes: Int = 256 << 10, socketSendBufferBytes: Int = 128 << 10
    ) {
        self.enabled = enabled
        self.handshakeTimeoutSeconds = handshakeTimeoutSeconds
        self.maximumUnauthenticated = max(1, maximumUnauthenticated)
        self.writeBufferBytes = max(4096, writeBufferBytes)
        self.socketSendBufferBytes = socketSendBufferBytes
    }
}
