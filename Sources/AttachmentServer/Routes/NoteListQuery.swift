import AttachmentStore
import Hummingbird

/// What every list of notes is asked with, the JSON API's (`GET /api/notes`) and the web UI's
/// (`/`, `/notes-page`): `q` (words to find), `sort` (`updated`, `created` or `title`) and
/// `after` (the cursor a previous page ended with), checked in one place.
struct NoteListQuery {
    /// The words to find; `nil` lists every note.
    let text: String?
    /// The list's order: `sort`, or the cursor's, or most recently changed first.
    let order: NoteOrder
    /// Where the page starts; `nil` for the first page.
    let cursor: NoteCursor?

    /// Reads `q`, `sort` and `after`.
    /// - Throws: ``ServerError`` 400 `bad_sort` for a `sort` that is no order, `bad_cursor` for an
    ///   `after` that is no cursor or was made for another order than `sort`.
    init(_ parameters: Parameters) throws {
        text = parameters.get("q").flatMap { $0.isEmpty ? nil : String($0) }
        let sort = try parameters.get("sort").map { text in
            guard let order = NoteOrder(rawValue: String(text)) else {
                throw ServerError.badRequest("sort must be one of \(NoteOrder.allCases.map(\.rawValue).joined(separator: ", "))", code: "bad_sort")
            }
            return order
        }
        cursor = try parameters.get("after").map { text in
            guard let cursor = NoteCursor(String(text)) else {
                throw ServerError.badRequest("after must be the cursor a previous page ended with (its `next` link or “More notes”)",
                                             code: "bad_cursor")
            }
            return cursor
        }
        if let cursor, let sort, cursor.order != sort {
            throw ServerError.badRequest("after is a cursor of the list sorted by \(cursor.order.rawValue), not \(sort.rawValue): ask with sort=\(cursor.order.rawValue) or start again without after",
                                         code: "bad_cursor")
        }
        order = sort ?? cursor?.order ?? .updated
    }

    /// The page: `limit` notes from the cursor on (or from the first), skipping `offset` more.
    func notes(from store: AttachmentStore, limit: Int, offset: Int = 0) async throws -> [Note] {
        if let cursor {
            try await store.notes(matching: text, limit: limit, offset: offset, after: cursor)
        } else {
            try await store.notes(matching: text, order: order, limit: limit, offset: offset)
        }
    }

    /// The cursor after `notes` when they fill a page of `limit` (there may be more).
    func next(after notes: [Note], limit: Int) -> NoteCursor? {
        NoteCursor.next(after: notes, limit: limit, order: order)
    }
}
