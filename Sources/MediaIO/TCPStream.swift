import Packets

/// One accepted ICE-TCP connection as its worker holds it: the descriptor,
/// the peer's address (the path's name in the demux table and the
/// transport, as a UDP source address is), what was read but not yet a
/// whole frame, and the frames waiting to be written.
///
/// Not `Sendable`: one worker thread owns it.
final class TCPStream {
    /// The epoll tag (unique per worker, never reused while it lives).
    let tag: UInt64
    let descriptor: Int32
    let peer: STUNAddress
    let acceptedAt: MediaTime
    /// An authenticated STUN check came over it: it is a live path now and
    /// no longer counts against the unauthenticated limit.
    var authenticated = false
    /// The last time a whole frame arrived (the idle timeout's clock).
    var lastInput: MediaTime
    /// EPOLLOUT is armed (bytes wait for the kernel's buffer).
    var watchingWritable = false
    /// Queued on the table's list of streams to flush.
    var dirty = false
    var closed = false
    let output: TCPWriteBuffer
    /// Bytes read but not yet framed: at most one prefix plus the largest
    /// packet, so one receive buffer per stream of 4 KiB suffices. Unsafe
    /// but sound: owned by this stream alone, freed in deinit, and reads and
    /// slices stay within `0..<inputCapacity`.
    let input: UnsafeMutableRawBufferPointer
    var inputCount = 0

    static let inputCapacity = 4096

    init(tag: UInt64, descriptor: Int32, peer: STUNAddress, now: MediaTime, writeBufferBytes: Int) {
        self.tag = tag
        self.descriptor = descriptor
        self.peer = peer
        self.acceptedAt = now
        self.lastInput = now
        self.output = TCPWriteBuffer(capacity: writeBufferBytes)
        self.input = .allocate(byteCount: Self.inputCapacity, alignment: 16)
    }

    deinit {
        input.deallocate()
    }
}
