import AttachmentStore
import Foundation

/// The home page: the notes, newest change first (or newest created, or by title: the "Sort"
/// choice, `?sort=`), a search box and a button for a new note.
///
/// Each note shows its title, when it changed, a line of its text and, when it has any, how
/// many attachments it holds and a strip of its first thumbnails (lazy, the gallery's own
/// 200 px renditions, so they come from the same cache). A search marks the words it found
/// (``SearchHighlight``) and the text line starts near the first match in the body.
///
/// Pages follow a cursor, so every page costs the same: the page's "More notes" link names the
/// last note shown (its cursor carries the order). The page script asks
/// `GET /notes-page?q=…&sort=…&after=…` for the same items as an HTML fragment (``fragment``, one
/// place for their markup) as the search box or the order changes and when "More notes" is
/// pressed.
struct NotesListPage {
    /// Notes in a page, in the list and in each fragment.
    static let pageSize = 50
    /// Thumbnails in a note's strip.
    static let stripSize = 4

    let notes: [Note]
    let previews: [NoteID: AttachmentPreview]
    let query: String
    var order: NoteOrder = .updated
    /// Whether this page comes after others (it then links back to the first).
    let isLaterPage: Bool
    let assets: StaticAssets
    /// The change feed's position when the page was read: the page follows changes from there.
    var feed: Int64?
    /// The page's size: a page of this many notes may have more after it.
    var limit: Int = NotesListPage.pageSize

    /// The page of notes `list` asks for, with their previews.
    static func read(_ list: NoteListQuery, from store: AttachmentStore, assets: StaticAssets, feed: Int64? = nil) async throws -> NotesListPage {
        let notes = try await list.notes(from: store, limit: pageSize)
        let previews = try await store.attachmentPreviews(of: notes.map(\.id), first: stripSize)
        return NotesListPage(notes: notes, previews: previews, query: list.text ?? "", order: list.order, isLaterPage: list.cursor != nil,
                             assets: assets, feed: feed)
    }

    /// The cursor after this page's last note when the page is full (there may be more).
    var nextCursor: String? {
        NoteCursor.next(after: notes, limit: limit, order: order)?.description
    }

    var html: String {
        let empty = query.isEmpty ? "No notes yet. Make one with “New note”." : "No note matches “\(HTML.escape(query))”."
        var pager = isLaterPage ? "<a href=\"\(link(after: nil))\">First page</a>" : ""
        if let next = nextCursor { pager += "<a id=\"notes-more\" class=\"button\" href=\"\(link(after: next))\">More notes</a>" }
        return HTML.page(title: "Notes", assets: assets, bodyClass: "notes-page", feed: feed, body: """
            <a class="skip-link" href="#notes">Skip to the notes</a>
            <header class="bar">
              <h1>Notes</h1>
              <a href="/trash" id="trash-link">Trash</a>
              <button type="button" id="new-note" class="primary">New note</button>
            </header>
            <main>
              <form class="search" role="search" action="/" method="get">
                <label for="search" class="visually-hidden">Search notes</label>
                <input id="search" name="q" type="search" value="\(HTML.escape(query))" placeholder="Search titles and text" autocomplete="off">
                <label for="sort" class="sort-label">Sort by</label>
                <select id="sort" name="sort">\(sortOptions)</select>
                <noscript><button type="submit">Show</button></noscript>
              </form>
              <p id="status" class="status" role="status" aria-live="polite"></p>
              <ul id="notes" class="notes" tabindex="-1" aria-label="Notes"\(nextAttribute)>\(items)</ul>
              <p id="empty" class="empty"\(notes.isEmpty ? "" : " hidden")>\(empty)</p>
              <nav class="pager" aria-label="More notes">\(pager)</nav>
            </main>
            """)
    }

    /// The fragment `GET /notes-page` answers: the items in a list carrying the next page's cursor.
    var fragment: String {
        "<ul class=\"notes-fragment\"\(nextAttribute)>\(items)</ul>"
    }

    private var nextAttribute: String {
        nextCursor.map { " data-next=\"\(HTML.escape($0))\"" } ?? ""
    }

    private var items: String {
        let highlight = SearchHighlight(query: query)
        return notes.map { Self.item(for: $0, preview: previews[$0.id], highlight: highlight, order: order) }.joined(separator: "\n")
    }

    /// The order's choices, the list's own selected.
    private var sortOptions: String {
        NoteOrder.allCases.map { choice in
            "<option value=\"\(choice.rawValue)\"\(choice == order ? " selected" : "")>\(choice.label)</option>"
        }.joined()
    }

    /// One note of the list, with when it was created in a list sorted by creation, when it last
    /// changed otherwise.
    static func item(for note: Note, preview: AttachmentPreview?, highlight: SearchHighlight, order: NoteOrder = .updated) -> String {
        let title = note.title.isEmpty ? "Untitled" : note.title
        let date = order == .created ? note.createdAt : note.updatedAt
        let dateLabel = order == .created ? "<span class=\"note-date-kind\">Created </span>" : ""
        return """
            <li class="note-item" data-id="\(HTML.escape(note.id.rawValue))"><a class="note-link" href="/notes/\(HTML.escape(note.id.rawValue))">\
            <span class="note-title">\(highlight.html(title))</span>\
            <span class="note-date">\(dateLabel)<time datetime="\(date.formatted(.iso8601))">\(Self.display(date))</time></span>\
            <span class="note-excerpt">\(highlight.html(excerpt(of: note.body, highlight: highlight)))</span>\
            \(preview.map(strip) ?? "")</a></li>
            """
    }

    /// The count and the first thumbnails; nothing for a note without attachments. A picture
    /// whose bytes are on a peer shows an empty square: its thumbnail would fetch them.
    private static func strip(_ preview: AttachmentPreview) -> String {
        guard preview.count > 0 else { return "" }
        let pictures = preview.first.map { attachment -> String in
            let resource = AttachmentResource(attachment)
            guard let thumbnail = resource.thumbnailUrl, attachment.availability == .local else {
                return "<span class=\"strip-file\"></span>"
            }
            return "<img loading=\"lazy\" decoding=\"async\" alt=\"\" src=\"\(HTML.escape(thumbnail))&amp;size=200\">"
        }.joined()
        let count = preview.count == 1 ? "1 attachment" : "\(preview.count) attachments"
        return "<span class=\"note-photos\"><span class=\"note-count\">\(count)</span><span class=\"strip\" aria-hidden=\"true\">\(pictures)</span></span>"
    }

    /// About 160 characters of `body`: its start, or the stretch around the first match when
    /// that lies further in.
    static func excerpt(of body: String, highlight: SearchHighlight) -> String {
        guard let match = highlight.firstMatch(in: body), body.distance(from: body.startIndex, to: match) > 120 else {
            return String(body.prefix(160))
        }
        let start = body.index(match, offsetBy: -40)
        return "…" + String(body[start...].prefix(160))
    }

    private func link(after cursor: String?) -> String {
        var components = URLComponents()
        components.path = "/"
        components.queryItems = (query.isEmpty ? [] : [URLQueryItem(name: "q", value: query)])
            + (order == .updated ? [] : [URLQueryItem(name: "sort", value: order.rawValue)])
            + (cursor.map { [URLQueryItem(name: "after", value: $0)] } ?? [])
        return HTML.escape(components.string ?? "/")
    }

    /// `2026-11-22 14:05` in UTC; the page script rewrites it in the reader's time zone.
    static func display(_ date: Date) -> String {
        var style = Date.ISO8601FormatStyle(timeZone: .gmt)
        style = style.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false).timeSeparator(.colon)
        return String(style.format(date).replacingOccurrences(of: "T", with: " ").prefix(16))
    }
}
