import ArgumentParser
import Foundation

/// A size on the command line: a number of bytes with an optional unit (`500M`, `2G`, `1.5GiB`,
/// `800k`; units are powers of 1024), or `none` for no limit.
struct ByteSize: ExpressibleByArgument, Equatable {
    /// The bytes, or `nil` for `none`.
    var bytes: Int64?

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        if text == "none" { bytes = nil; return }
        let units: [(String, Double)] = [("tib", 0x1p40), ("gib", 0x1p30), ("mib", 0x1p20), ("kib", 0x1p10),
                                         ("tb", 0x1p40), ("gb", 0x1p30), ("mb", 0x1p20), ("kb", 0x1p10),
                                         ("t", 0x1p40), ("g", 0x1p30), ("m", 0x1p20), ("k", 0x1p10), ("b", 1)]
        var number = Substring(text)
        var scale = 1.0
        if let (suffix, factor) = units.first(where: { text.hasSuffix($0.0) }) {
            number = text.dropLast(suffix.count)
            scale = factor
        }
        guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value >= 0, value * scale < 0x1p62 else { return nil }
        bytes = Int64(value * scale)
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
