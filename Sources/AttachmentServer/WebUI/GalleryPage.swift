import AttachmentStore
import Foundation

/// One page of a note's gallery: up to ``NoteDetailPage/pageSize`` attachments from a position
/// on, and the address of the next page's tiles when there are more.
///
/// The note page shows the first; `GET /notes/{id}/gallery?after=P` answers each later one as an
/// HTML fragment of the same tiles (``NoteDetailPage/tile(for:)``, the one place their markup is
/// written), which the page script appends as the user scrolls.
struct GalleryPage {
    /// The page's attachments, in position order.
    let attachments: [Attachment]
    /// The address of the next page's fragment; `nil` on the last page.
    let next: String?
    /// How many of the note's attachments come after this page (known for the first page only:
    /// the page script adds it to a new upload's place among the tiles shown).
    var unloaded: Int?

    /// The page of `note`'s attachments after position `after` (from the first when `nil`).
    static func read(note: NoteID, after: Int?, from store: AttachmentStore) async throws -> GalleryPage {
        let limit = NoteDetailPage.pageSize
        let page = try await store.attachments(of: note, after: after, limit: limit + 1)
        let shown = Array(page.prefix(limit))
        let next = page.count > limit ? shown.last.map { "/notes/\(note.rawValue)/gallery?after=\($0.position)" } : nil
        return GalleryPage(attachments: shown, next: next)
    }

    /// The first page of `note`'s gallery, with the count of the attachments after it.
    static func first(note: NoteID, from store: AttachmentStore) async throws -> GalleryPage {
        var page = try await read(note: note, after: nil, from: store)
        page.unloaded = page.next == nil ? 0 : max(0, try await store.attachmentCount(of: note) - page.attachments.count)
        return page
    }

    /// ` data-next="…"` (and ` data-unloaded="N"`) for the gallery list, or nothing on the last page.
    var nextAttribute: String {
        (next.map { " data-next=\"\(HTML.escape($0))\"" } ?? "") + (unloaded.map { $0 > 0 ? " data-unloaded=\"\($0)\"" : "" } ?? "")
    }

    /// The fragment `GET /notes/{id}/gallery` answers: the tiles in a list carrying the next
    /// page's address.
    var fragment: String {
        "<ul class=\"gallery-page\"\(nextAttribute)>" + attachments.map { NoteDetailPage.tile(for: $0) }.joined(separator: "\n") + "</ul>"
    }
}
