import AttachmentStore
import Foundation

/// The home page: the notes, a search box and a button for a new note.
struct NotesListPage {
    let notes: [Note]
    let query: String
    let offset: Int
    let limit: Int
    let assets: StaticAssets
    /// The change feed's position when the page was read: the page follows changes from there.
    var feed: Int64?

    var html: String {
        let items = notes.map { note in
            """
            <li><a class="note-link" href="/notes/\(HTML.escape(note.id.rawValue))">\
            <span class="note-title">\(HTML.escape(note.title.isEmpty ? "Untitled" : note.title))</span>\
            <time datetime="\(note.updatedAt.formatted(.iso8601))">\(Self.display(note.updatedAt))</time>\
            <span class="note-excerpt">\(HTML.escape(String(note.body.prefix(160))))</span></a></li>
            """
        }.joined(separator: "\n")
        let empty = query.isEmpty ? "No notes yet. Make one with “New note”." : "No note matches “\(HTML.escape(query))”."
        var pager = ""
        if offset > 0 { pager += "<a href=\"\(link(offset: max(0, offset - limit)))\">Newer</a>" }
        if notes.count == limit { pager += "<a href=\"\(link(offset: offset + limit))\">Older</a>" }
        return HTML.page(title: "Notes", assets: assets, bodyClass: "notes-page", feed: feed, body: """
            <header class="bar">
              <h1>Notes</h1>
              <a href="/trash" id="trash-link">Trash</a>
              <button type="button" id="new-note" class="primary">New note</button>
            </header>
            <main>
              <form class="search" role="search" action="/" method="get">
                <label for="search" class="visually-hidden">Search notes</label>
                <input id="search" name="q" type="search" value="\(HTML.escape(query))" placeholder="Search titles and text" autocomplete="off">
              </form>
              <p id="status" class="status" role="status" aria-live="polite"></p>
              <ul id="notes" class="notes">\(items)</ul>
              <p id="empty" class="empty"\(notes.isEmpty ? "" : " hidden")>\(empty)</p>
              <nav class="pager">\(pager)</nav>
            </main>
            """)
    }

    private func link(offset: Int) -> String {
        var components = URLComponents()
        components.path = "/"
        components.queryItems = (query.isEmpty ? [] : [URLQueryItem(name: "q", value: query)])
            + [URLQueryItem(name: "offset", value: String(offset))]
        return HTML.escape(components.string ?? "/")
    }

    /// `2026-11-22 14:05` in UTC; the page script rewrites it in the reader's time zone.
    static func display(_ date: Date) -> String {
        var style = Date.ISO8601FormatStyle(timeZone: .gmt)
        style = style.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false).timeSeparator(.colon)
        return String(style.format(date).replacingOccurrences(of: "T", with: " ").prefix(16))
    }
}
