import Packets
import Foundation
import NIOCore
import WebRTC

/// The engine's clocks: monotonic `MediaTime` (NIO's uptime clock, the one
/// its timers use) and NTP wall-clock time for RTCP (RFC 3550 section 4).
enum EngineClock {
    /// Seconds from 1900 (NTP epoch) to 1970 (Unix epoch).
    static let unixEpochOffset: Double = 2_208_988_800

    static func now() -> MediaTime {
        MediaTime(nanoseconds: NIODeadline.now().uptimeNanoseconds)
    }

    /// NTP 32.32 fixed point now.
    static func ntpNow() -> UInt64 {
        let seconds = Date().timeIntervalSince1970 + unixEpochOffset
        let whole = UInt64(seconds)
        let fraction = UInt64((seconds - Double(whole)) * 4_294_967_296)
        return whole << 32 | min(fraction, 0xFFFF_FFFF)
    }

    /// abs-send-time: 6.18 fixed-point seconds, 24 bits (webrtc.org).
    static func absSendTime(ntp: UInt64) -> [UInt8] {
        let value = UInt32(truncatingIfNeeded: ntp >> 14) & 0xFF_FFFF
        return [UInt8(value >> 16), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
