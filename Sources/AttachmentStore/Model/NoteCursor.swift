import Foundation

/// Where a page of notes ended: the last note's last change and id. The next page is the
/// notes after it in the listing order (most recently updated first, then by id), read
/// straight off the catalog's index, so a page costs the same however deep it is; notes
/// created or updated meanwhile move to the front and are neither repeated nor skipped.
///
/// Written as `<milliseconds since 1970>_<note id>`, e.g.
/// `1790000000123_3f2a…-…`, so it can travel in a URL.
public struct NoteCursor: Sendable, Hashable, CustomStringConvertible {
    /// When the last note of the page last changed, in whole milliseconds since 1970 (the
    /// catalog's precision).
    public let updatedAtMilliseconds: Int64
    /// The last note of the page.
    public let id: NoteID

    /// When the last note of the page last changed.
    public var updatedAt: Date { Date(timeIntervalSince1970: TimeInterval(updatedAtMilliseconds) / 1000) }

    /// The cursor after `note` (a note as the store returned it: its dates are whole milliseconds).
    public init(after note: Note) {
        self.updatedAtMilliseconds = Int64((note.updatedAt.timeIntervalSince1970 * 1000).rounded())
        self.id = note.id
    }

    /// Reads a cursor written by ``description``; `nil` for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "_", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, (1...15).contains(parts[0].utf8.count), parts[0].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let milliseconds = Int64(parts[0]), parts[1].utf8.count == 36,
              parts[1].enumerated().allSatisfy({ index, character in
                  [8, 13, 18, 23].contains(index) ? character == "-" : ("0"..."9").contains(character) || ("a"..."f").contains(character)
              }) else { return nil }
        self.updatedAtMilliseconds = milliseconds
        self.id = NoteID(rawValue: String(parts[1]))
    }

    /// `<milliseconds since 1970>_<note id>`.
    public var description: String {
        "\(updatedAtMilliseconds)_\(id.rawValue)"
    }
}
