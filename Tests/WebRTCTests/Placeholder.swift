import Packets
import Testing
import WebRTC

@Test func mediaTimeOrdersAndSubtracts() {
    let a = MediaTime.milliseconds(1500)
    #expect(a.adding(milliseconds: 500) == .seconds(2))
    #expect(MediaTime.seconds(2).nanoseconds(since: a) == 500_000_000)
    #expect(a.nanoseconds(since: .seconds(2)) == 0)
}
