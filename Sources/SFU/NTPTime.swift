import Packets

/// NTP timestamps (RFC 3550 section 4: seconds since 1900 in the high 32
/// bits, the fraction in the low 32) for the worker's clock.
enum NTPTime {
    /// `now` as an NTP timestamp, with `atZero` the NTP time of MediaTime 0.
    static func timestamp(_ now: MediaTime, atZero: UInt64) -> UInt64 {
        let seconds = now.nanoseconds / 1_000_000_000
        let fraction = ((now.nanoseconds % 1_000_000_000) << 32) / 1_000_000_000
        return atZero &+ (seconds << 32 | fraction)
    }

    /// The middle 32 bits (LSR, RFC 3550 6.4.1): 1/65536 s units.
    static func middle(_ ntp: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: ntp >> 16) }
}
