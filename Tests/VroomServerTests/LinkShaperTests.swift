import Foundation
import Testing
@testable import VroomTesting

#if canImport(Glibc)
import Glibc
#endif

/// The htb bottleneck of `scripts/shape.sh` through `LinkShaper`, measured
/// with real datagrams on loopback. Shaping runs only in a network
/// namespace of the test's own: run
/// `unshare --net bash -c 'ip link set lo up && swift test --skip-build --filter LinkShaperTests'`
/// as root (scripts/interop/run.sh's `shape` scenario runs the same check
/// in CI). Elsewhere the shaping test is skipped and only the guard is checked.
@Suite(.serialized) struct LinkShaperTests {
    @Test(.enabled(if: LinkShaper.unavailableReason != nil, "checks the refusal outside a private namespace"))
    func refusesToShapeTheMachinesOwnInterfaces() throws {
        // The script stops before any tc command: nothing is touched.
        #expect(throws: LinkShaper.Failure.self) { try LinkShaper().add(port: 40_000, kbit: 500) }
        do {
            try LinkShaper().clear()
            Issue.record("clear ran outside a private namespace")
        } catch let failure as LinkShaper.Failure {
            #expect(failure.standardError.contains("refusing"), "\(failure)")
        }
    }

    @Test(.enabled(
        if: LinkShaper.unavailableReason == nil,
        "needs root in a loopback-only network namespace: \(LinkShaper.unavailableReason ?? "")"))
    func theShapedPortReceivesTheRateAndFollowsAChange() throws {
        let receiver = try UDPRelaySocket.open(bindingTo: UDPRelaySocket.address(host: "127.0.0.1", port: 0)!)
        let sender = try UDPRelaySocket.open(bindingTo: UDPRelaySocket.address(host: "127.0.0.1", port: 0)!)
        defer {
            close(receiver)
            close(sender)
        }
        let port = UDPRelaySocket.localPort(receiver)
        let shaper = LinkShaper()
        // Even a half-done add leaves nothing behind.
        defer { try? shaper.clear() }
        try shaper.add(port: port, kbit: 500)

        // 2 Mbit/s offered: 1,000-byte datagrams every 4 ms.
        let first = try measure(from: sender, to: receiver, port: port, settle: 1, window: 2.5)
        try shaper.change(port: port, kbit: 1_000)
        let second = try measure(from: sender, to: receiver, port: port, settle: 1, window: 2.5)
        // htb counts 42 bytes of headers per datagram: 96% of the class rate
        // arrives as payload, well inside the 20%.
        #expect((400...600).contains(first), "\(first) kbit/s at 500")
        #expect((800...1_200).contains(second), "\(second) kbit/s at 1000")
    }

    /// Sends 2 Mbit/s for `settle + window` seconds; the payload kbit/s
    /// received during the last `window`.
    func measure(from sender: Int32, to receiver: Int32, port: UInt16, settle: Double, window: Double) throws -> Int {
        var target = UDPRelaySocket.sockaddr(UDPRelaySocket.address(host: "127.0.0.1", port: port)!)
        let payload = [UInt8](repeating: 0, count: 1_000)
        var buffer = [UInt8](repeating: 0, count: 2_048)
        let start = UDPRelaySocket.monotonicNanoseconds()
        let windowStart = start + UInt64(settle * 1e9)
        let end = windowStart + UInt64(window * 1e9)
        var nextSend = start
        var received = 0
        while true {
            let now = UDPRelaySocket.monotonicNanoseconds()
            if now >= end { break }
            if now >= nextSend {
                _ = payload.withUnsafeBytes { bytes in
                    withUnsafePointer(to: &target) {
                        // The IPv4 layout of sockaddr.
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(sender, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
                nextSend += 4_000_000
            }
            while true {
                let count = buffer.withUnsafeMutableBytes {
                    recv(receiver, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
                }
                guard count > 0 else { break }
                if UDPRelaySocket.monotonicNanoseconds() >= windowStart { received += count }
            }
            usleep(500)
        }
        return Int(Double(received) * 8 / window / 1_000)
    }
}
