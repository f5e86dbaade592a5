import Synchronization

/// How one media worker reaches the others: a job on another worker's
/// thread (`MediaWorker.enqueue`). Set once the plane made its workers;
/// used for a room spread over several workers (keyframe requests, quality
/// samples and layer demands of the subscribers a worker holds, going to
/// the room's home worker), never per packet.
package final class MediaWorkerPeers: Sendable {
    package typealias Job = @Sendable (MediaWorkerRooms) -> Void

    package init() {}

    private let enqueuers = Mutex<[@Sendable (@escaping Job) -> Void]>([])

    func set(_ enqueuers: [@Sendable (@escaping Job) -> Void]) {
        self.enqueuers.withLock { $0 = enqueuers }
    }

    /// Runs `job` on worker `index`'s thread, soon (dropped when there is no such worker).
    func enqueue(on index: Int, _ job: @escaping Job) {
        guard let enqueue = enqueuers.withLock({ index < $0.count ? $0[index] : nil }) else { return }
        enqueue(job)
    }
}
