import Glibc

/// The text of an HTTP `Date` field (IMF-fixdate, `Thu, 26 Nov 2026 12:03:33 GMT`) for the
/// current second, formatted once per second by whoever keeps this value.
struct HTTPDateText {
    private var second = Int.min
    private var text = ""

    /// The current second's text.
    mutating func now() -> String {
        var clock = timespec()
        clock_gettime(CLOCK_REALTIME, &clock)
        if clock.tv_sec != second {
            second = clock.tv_sec
            text = Self.format(secondsSince1970: clock.tv_sec)
        }
        return text
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The text of the UTC second `secondsSince1970`.
    static func format(secondsSince1970: Int) -> String {
        var time = time_t(secondsSince1970)
        var parts = tm()
        gmtime_r(&time, &parts)
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(twoDigits(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec)) GMT"
    }
}
