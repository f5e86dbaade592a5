import CVroomUDP
import Foundation
import Logging
import Packets
import Synchronization
import Testing
import WebRTC

@testable import MediaIO

/// Answers every datagram with its bytes reversed, and counts timer runs:
/// enough to see the worker's batching, egress and jobs work on a real socket.
private final class ReversingHandler: MediaWorkerHandler {
    var received = 0
    var timerRuns = 0

    func received(_ ring: DatagramRing, count: Int, stream: UInt64, now: MediaTime, egress: EgressQueue) -> MediaTime? {
        for index in 0..<count {
            received += 1
            guard let source = ring.address(index) else { continue }
            let length = ring.length(index)
            let input = UnsafeRawBufferPointer(rebasing: ring.buffer(index)[0..<length])
            let slot = egress.reserve()
            for offset in 0..<length { slot[offset] = input[length - 1 - offset] }
            egress.commitDatagram(length: length, to: source)
        }
        return nil
    }

    func fireTimers(now: MediaTime, egress: EgressQueue) -> MediaTime {
        timerRuns += 1
        return now.adding(milliseconds: 20)
    }
}

@Suite struct MediaWorkerTests {
    @Test func answersEveryDatagramOfABurstInOrderAndRunsJobsOnItsThread() async throws {
        let worker = try MediaWorker(index: 0, socket: UDPSocket(address: "127.0.0.1", port: 0)) { ReversingHandler() }
        worker.start(logger: Logger(label: "test"))
        let client = try UDPSocket(address: "127.0.0.1", port: 0)
        defer { client.close() }
        let port = worker.socket.localPort
        let loopback: [UInt8] = [127, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        // 100 datagrams in one burst: more than one receive batch of 32.
        for n in 0..<100 {
            let bytes: [UInt8] = [UInt8(n), 0xAA, 0xBB]
            let sent = vroom_udp_send_one(client.descriptor, bytes, 3, 4, port, loopback)
            #expect(sent == 3)
        }
        var replies: [[UInt8]] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
        defer { buffer.deallocate() }
        for _ in 0..<100 {
            let count = try client.receive(into: buffer)
            replies.append(Array(buffer[0..<count]))
        }
        #expect(replies == (0..<100).map { [0xBB, 0xAA, UInt8($0)] })
        let counts = await worker.perform { ($0.received, $0.timerRuns) }
        #expect(counts.0 == 100)
        #expect(counts.1 >= 1)
        await worker.stop()
    }

    @Test func aTruncatedDatagramIsMarkedEmpty() async throws {
        let worker = try MediaWorker(index: 0, socket: UDPSocket(address: "127.0.0.1", port: 0)) { ReversingHandler() }
        let ring = DatagramRing(capacity: 2, slotSize: 64)
        let client = try UDPSocket(address: "127.0.0.1", port: 0)
        defer { client.close() }
        let loopback: [UInt8] = [127, 0, 0, 1] + [UInt8](repeating: 0, count: 12)
        let big = [UInt8](repeating: 7, count: 100)
        #expect(vroom_udp_send_one(client.descriptor, big, 100, 4, worker.socket.localPort, loopback) == 100)
        #expect(vroom_udp_send_one(client.descriptor, big, 10, 4, worker.socket.localPort, loopback) == 10)
        var received = 0
        for _ in 0..<100 where received < 2 {
            let n = vroom_udp_receive_batch(worker.socket.descriptor, ring.datagrams + received, UInt32(2 - received))
            if n > 0 { received += Int(n) } else { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(received == 2)
        #expect(ring.length(0) == 0)
        #expect(ring.length(1) == 10)
        #expect(ring.address(1)?.port == client.localPort)
        worker.socket.close()
    }
}
