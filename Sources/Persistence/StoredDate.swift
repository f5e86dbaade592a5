import Foundation

/// Dates are stored as integer seconds since 1970 UTC: Twilio's JSON has
/// second precision, and integers sort and compare exactly in SQL.
enum StoredDate {
    /// Rounded down, so 10:30:00.999 is 10:30:00 as Twilio would print it.
    static func seconds(_ date: Date) -> Int {
        Int(date.timeIntervalSince1970.rounded(.down))
    }

    static func date(_ seconds: Int) -> Date {
        Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
