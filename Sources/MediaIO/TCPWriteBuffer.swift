import Packets

/// The bytes waiting to go out on one TCP stream: whole RFC 4571 frames,
/// bounded. A frame that does not fit is dropped whole (never cut: half a
/// frame would desynchronise the peer's framing), and a frame the kernel
/// took only partly stays at the front until its remainder is written, so
/// what the peer reads is always a sequence of whole frames.
///
/// Allocated on the first frame, so an idle or unauthenticated stream costs
/// no buffer. Not `Sendable`: one worker thread owns it.
final class TCPWriteBuffer {
    let capacity: Int
    /// Unsafe but sound: allocated once with `capacity` bytes, owned by this
    /// instance alone (freed in deinit), every access within `0..<capacity`.
    private var storage: UnsafeMutableRawBufferPointer?
    /// Pending bytes are `storage[start..<end]`.
    private var start = 0
    private var end = 0
    /// Frames dropped because the buffer was full (a slow reader).
    private(set) var droppedFrames: UInt64 = 0
    private(set) var framesQueued: UInt64 = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    deinit {
        storage?.deallocate()
    }

    var pendingBytes: Int { end - start }
    var isEmpty: Bool { start == end }

    /// Queues `packet` with its length prefix, or drops it (counted) when
    /// the buffer has no room for the whole frame.
    @discardableResult
    func append(_ packet: UnsafeRawBufferPointer) -> Bool {
        let frame = RFC4571Framing.headerLength + packet.count
        guard packet.count > 0, packet.count <= 0xFFFF, frame <= capacity else {
            droppedFrames &+= 1
            return false
        }
        let buffer = storage ?? {
            let allocated = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
            storage = allocated
            return allocated
        }()
        if capacity - end < frame {
            guard capacity - pendingBytes >= frame else {
                droppedFrames &+= 1
                return false
            }
            // Move what waits (maybe a partly written frame) to the front.
            if pendingBytes > 0, let base = buffer.baseAddress {
                base.copyMemory(from: base + start, byteCount: pendingBytes)
            }
            end = pendingBytes
            start = 0
        }
        RFC4571Framing.writeHeader(length: packet.count, to: UnsafeMutableRawBufferPointer(rebasing: buffer[end..<(end + 2)]))
        UnsafeMutableRawBufferPointer(rebasing: buffer[(end + 2)..<(end + frame)]).copyMemory(from: packet)
        end += frame
        framesQueued &+= 1
        return true
    }

    /// Hands the pending bytes to `write` (which returns how many it took,
    /// or nil when the stream failed) once: one system call per flush for
    /// all the frames queued since the last. Returns false when `write` failed.
    func flush(_ write: (UnsafeRawBufferPointer) -> Int?) -> Bool {
        guard let storage, !isEmpty else { return true }
        guard let written = write(UnsafeRawBufferPointer(rebasing: storage[start..<end])) else { return false }
        start += written
        if start == end {
            start = 0
            end = 0
        }
        return true
    }
}
