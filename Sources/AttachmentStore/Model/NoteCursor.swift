import CatalogSQL
import Foundation

/// Where a page of notes ended: the list's order, the last note's place in it (its last change,
/// its creation or its title's sort key) and its id. The next page is the notes after it in that
/// order, read straight off the catalog's index for it, so a page costs the same however deep it
/// is; notes created or changed meanwhile are neither repeated nor skipped (they move to where
/// their order puts them).
///
/// Written so it can travel in a URL unescaped, the last note's id after an underscore:
/// - ``NoteOrder/updated``: `<milliseconds since 1970>_<note id>`, e.g. `1790000000123_3f2a…`;
/// - ``NoteOrder/created``: `c<milliseconds since 1970>_<note id>`;
/// - ``NoteOrder/title``: `t<the title's sort key in base64url, unpadded>_<note id>`.
public struct NoteCursor: Sendable, Hashable, CustomStringConvertible {
    /// The last note's place in its order.
    public enum Place: Sendable, Hashable {
        /// When it last changed (``NoteOrder/updated``) or was created (``NoteOrder/created``),
        /// in whole milliseconds since 1970 (the catalog's precision).
        case milliseconds(Int64)
        /// Its title's sort key (``NoteOrder/title``; `NoteTitleSortKey` in `CatalogSQL`).
        case titleKey(String)
    }

    /// The order of the list the cursor pages.
    public let order: NoteOrder
    /// The last note's place in ``order``.
    public let place: Place
    /// The last note of the page.
    public let id: NoteID

    /// The cursor after `note` (a note as the store returned it: its dates are whole
    /// milliseconds) in a list ordered by `order`.
    public init(after note: Note, order: NoteOrder = .updated) {
        self.order = order
        self.id = note.id
        switch order {
        case .updated: place = .milliseconds(Self.milliseconds(note.updatedAt))
        case .created: place = .milliseconds(Self.milliseconds(note.createdAt))
        case .title: place = .titleKey(NoteTitleSortKey.key(for: note.title))
        }
    }

    /// The cursor after `page`, a page of at most `limit` notes listed in `order`, when the page is
    /// full (there may be more); `nil` when it is not.
    public static func next(after page: [Note], limit: Int, order: NoteOrder) -> NoteCursor? {
        guard page.count == limit, let last = page.last else { return nil }
        return NoteCursor(after: last, order: order)
    }

    /// Reads a cursor written by ``description``; `nil` for anything else.
    public init?(_ text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count > 37, utf8[utf8.count - 37] == UInt8(ascii: "_"),
              let id = Self.noteID(utf8.suffix(36)) else { return nil }
        let head = utf8.prefix(utf8.count - 37)
        switch head.first {
        case UInt8(ascii: "c"):
            guard let milliseconds = Self.milliseconds(head.dropFirst()) else { return nil }
            order = .created
            place = .milliseconds(milliseconds)
        case UInt8(ascii: "t"):
            guard let key = Self.titleKey(head.dropFirst()) else { return nil }
            order = .title
            place = .titleKey(key)
        default:
            guard let milliseconds = Self.milliseconds(head) else { return nil }
            order = .updated
            place = .milliseconds(milliseconds)
        }
        self.id = id
    }

    /// The text ``init(_:)`` reads.
    public var description: String {
        let head = switch (order, place) {
        case (.created, .milliseconds(let milliseconds)): "c\(milliseconds)"
        case (_, .milliseconds(let milliseconds)): "\(milliseconds)"
        case (_, .titleKey(let key)): "t" + Self.base64URL(Data(key.utf8))
        }
        return "\(head)_\(id.rawValue)"
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// 1 to 15 ASCII digits.
    private static func milliseconds(_ digits: some Collection<UInt8>) -> Int64? {
        guard (1...15).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(String(decoding: digits, as: UTF8.self))
    }

    /// A lowercase UUID with its dashes.
    private static func noteID(_ text: some Collection<UInt8>) -> NoteID? {
        guard text.count == 36, text.enumerated().allSatisfy({ index, byte in
            [8, 13, 18, 23].contains(index) ? byte == UInt8(ascii: "-") : (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
        }) else { return nil }
        return NoteID(rawValue: String(decoding: text, as: UTF8.self))
    }

    /// The place a `t` cursor carries: base64url (unpadded; a last lone character, which holds no
    /// whole byte, is ignored) of UTF-8, up to 800 characters. Any such text is a place to start
    /// from, whether or not some title has it as its key: bytes that are not UTF-8 read as U+FFFD
    /// and NUL (which PostgreSQL's text cannot hold) is dropped.
    private static func titleKey(_ encoded: some Collection<UInt8>) -> String? {
        let alphabet = { (byte: UInt8) in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2D || byte == 0x5F
        }
        guard (1...800).contains(encoded.count), encoded.allSatisfy(alphabet) else { return nil }
        var standard = String(decoding: encoded.prefix(encoded.count - (encoded.count % 4 == 1 ? 1 : 0)), as: UTF8.self)
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: standard) else { return nil }
        return String(String.UnicodeScalarView(String(decoding: data, as: UTF8.self).unicodeScalars.filter { $0 != "\0" }))
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
