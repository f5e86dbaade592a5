import Foundation

/// Dates in REST JSON: exactly `YYYY-MM-DDTHH:MM:SSZ` in UTC, whole seconds
/// (PROTOCOL.md section 6: Twilio's libraries parse only that shape).
enum TwilioDate {
    static func string(_ date: Date) -> String {
        let whole = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        return whole.formatted(Date.ISO8601FormatStyle())
    }

    /// A filter value: `YYYY-MM-DDTHH:MM:SSZ` (fractions and offsets allowed)
    /// or a bare `YYYY-MM-DD` (midnight UTC), as Twilio's `DateCreatedAfter` takes.
    static func parse(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        if let date = try? Date.ISO8601FormatStyle().year().month().day().parse(text) { return date }
        return nil
    }
}

extension Date {
    /// Rounded down to the second: live records have fractions, history
    /// and JSON do not, and filters must compare them alike.
    var wholeSeconds: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}
