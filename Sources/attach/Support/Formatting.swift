import AttachmentStore
import Foundation

/// Human-readable sizes, ids and durations for terminal output.
enum Formatting {
    /// `1234567` → `1.2 MB` (decimal units, as `ls -h --si` and most file managers).
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        // 999.5 kB and up would print as "1000 kB": that is the next unit already.
        while (value >= 1000 || (unit > 0 && value >= 999.5)) && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        // Below 9.95 one decimal ("9.9 kB"); from there on whole numbers ("10 kB", not "10.0 kB").
        return unit == 0 ? "\(count) B" : String(format: value < 9.95 ? "%.1f %@" : "%.0f %@", value, units[unit])
    }

    /// The first 8 characters of an id: enough to type, and commands accept any unique prefix.
    static func short(_ id: String) -> String { String(id.prefix(8)) }

    /// `WIDTHxHEIGHT` of an image attachment, or `-`.
    static func dimensions(_ attachment: Attachment) -> String {
        guard let image = attachment.image else { return "-" }
        return "\(image.width)x\(image.height)"
    }

    /// Pads columns to a common width; the last column is left as is.
    static func table(_ rows: [[String]]) -> [String] {
        guard let columns = rows.map(\.count).max(), columns > 0 else { return [] }
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
    }

    /// Parses `0`, `90`, `30s`, `15m`, `1h`, `2d` into a duration.
    static func duration(_ text: String) -> Duration? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        if let seconds = Int64(text), seconds >= 0 { return .seconds(seconds) }
        guard let unit = text.last, let scale = units[unit], let value = Int64(text.dropLast()), value >= 0 else { return nil }
        let (seconds, overflow) = value.multipliedReportingOverflow(by: scale)
        return overflow ? nil : .seconds(seconds)
    }
}
