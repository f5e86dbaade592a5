import Foundation
import Testing

@testable import LoadTestCore

@Suite struct ProcessCPUTimeTests {
    @Test func readsUtimeAndStimeAfterTheCommand() throws {
        // proc(5): pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime ...
        // A comm with spaces and a ")" must not shift the fields.
        let stat = "4242 (vroom) (x y) S 1 4242 4242 0 -1 4194560 1234 0 5 0 750 125 0 0 20 0 9 0 100 0 0\n"
        let time = try #require(ProcessCPUTime.parse(stat: stat, ticksPerSecond: 100))
        #expect(time.ticks == 875)
        #expect(time.seconds == 8.75)
        #expect(ProcessCPUTime.parse(stat: "4242 (short) S 1 2", ticksPerSecond: 100) == nil)
        #expect(ProcessCPUTime.parse(stat: "garbage", ticksPerSecond: 100) == nil)
    }

    @Test func readsALiveProcessAndNotAMissingOne() throws {
        let before = try #require(ProcessCPUTime.read(pid: getpid()))
        // Burn about 50 ms of CPU so the reading must move (ticks are 10 ms).
        let deadline = Date().addingTimeInterval(0.05)
        var x: UInt64 = 1
        while Date() < deadline { x = x &* 6364136223846793005 &+ 1 }
        #expect(x != 0)
        let after = try #require(ProcessCPUTime.read(pid: getpid()))
        #expect(after.ticks > before.ticks)
        #expect(ProcessCPUTime.read(pid: Int32.max) == nil)
    }
}
