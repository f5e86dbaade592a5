import Testing
@testable import SFU

@Suite struct PacketBufferPoolTests {
    @Test func buffersAreReusedReservedAndBoundedWhenFree() {
        let pool = PacketBufferPool(bufferSize: 64, keepLimit: 3)
        let a = pool.take()
        let b = pool.take()
        #expect(pool.liveCount == 2 && pool.freeCount == 0)
        pool.give(a)
        #expect(pool.take() == a, "a given buffer is the next one taken")
        pool.give(a)
        pool.give(b)
        #expect(pool.liveCount == 2 && pool.freeCount == 2)
        // A warm-up tops the free list up to its limit, no further.
        pool.reserve(10)
        #expect(pool.freeCount == 3 && pool.liveCount == 3)
        let taken = (0..<5).map { _ in pool.take() }
        #expect(pool.liveCount == 5 && Set(taken).count == 5)
        // Beyond the limit, given buffers go back to the allocator.
        for buffer in taken { pool.give(buffer) }
        #expect(pool.freeCount == 3 && pool.liveCount == 3)
    }
}
