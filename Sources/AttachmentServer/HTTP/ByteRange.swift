import Foundation

/// One byte range of a `Range: bytes=...` request header, resolved against a size.
///
/// Only single ranges are served as 206; a header with several ranges, another unit, or a
/// syntax error is ignored (the full body is sent), as RFC 9110 allows.
enum ByteRange: Equatable {
    /// Serve these bytes with 206.
    case satisfiable(ClosedRange<Int64>)
    /// No byte of the range exists: answer 416.
    case unsatisfiable
    /// No usable range: serve everything with 200.
    case ignored

    /// Resolves `header` (for example `bytes=0-1023`, `bytes=500-`, `bytes=-500`) for a body of `size` bytes.
    init(header: String?, size: Int64) {
        guard let header else { self = .ignored; return }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes=") else { self = .ignored; return }
        let spec = trimmed.dropFirst(6).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { self = .ignored; return }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        switch (Self.number(first), Self.number(last)) {
        case (let start?, nil) where last.isEmpty && start >= 0:
            self = start < size ? .satisfiable(start...(size - 1)) : .unsatisfiable
        case (let start?, let end?) where start >= 0 && end >= start:
            self = start < size ? .satisfiable(start...min(end, size - 1)) : .unsatisfiable
        case (nil, let suffix?) where first.isEmpty && suffix >= 0:
            if suffix == 0 || size == 0 { self = .unsatisfiable; return }
            self = .satisfiable(max(0, size - suffix)...(size - 1))
        default:
            self = .ignored
        }
    }

    /// The value of a run of ASCII digits (no sign, no spaces), `Int64.max` for one too large to
    /// hold (beyond any file, so a last position that large means "to the end", as RFC 9110
    /// says); `nil` for anything else.
    private static func number(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text) ?? .max
    }
}
