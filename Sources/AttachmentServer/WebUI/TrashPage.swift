import AttachmentStore
import Foundation

/// `/trash`: what was deleted, newest first, each with Restore and Delete forever, and a button
/// that empties the trash. A restore or a purge here goes to every peer by sync.
struct TrashPage {
    let items: [TrashItem]
    let assets: StaticAssets

    var html: String {
        let rows = items.map { item -> String in
            let what = item.kind == .note
                ? "Note · \(item.attachmentCount) attachment\(item.attachmentCount == 1 ? "" : "s")"
                : "Attachment · \(item.mediaType ?? "file")"
            let title = item.title.isEmpty ? (item.kind == .note ? "Untitled" : "unnamed") : item.title
            return """
                <li class="trash-item" data-id="\(HTML.escape(item.id))" data-kind="\(item.kind.rawValue)">\
                <span class="note-title">\(HTML.escape(title))</span>\
                <span class="trash-facts">\(HTML.escape(what)) · \(HTML.escape(Self.size(item.byteCount))) · deleted \
                <time datetime="\(item.trashedAt.formatted(.iso8601))">\(NotesListPage.display(item.trashedAt))</time>, \
                purged after <time datetime="\(item.purgeAt.formatted(.iso8601))">\(NotesListPage.display(item.purgeAt))</time></span>\
                <span class="trash-actions"><button type="button" class="restore primary">Restore</button>\
                <button type="button" class="purge danger">Delete forever</button></span></li>
                """
        }.joined(separator: "\n")
        return HTML.page(title: "Trash", assets: assets, bodyClass: "trash-page", body: """
            <a class="skip-link" href="#trash">Skip to the trash</a>
            <header class="bar">
              <a href="/" class="back">← Notes</a>
              <h1>Trash</h1>
              <button type="button" id="empty-trash" class="danger"\(items.isEmpty ? " hidden" : "")>Empty trash</button>
            </header>
            <main>
              <p class="hint">Deleted notes and photos stay here, on every device that syncs, until they are purged.</p>
              <p id="status" class="status" role="status" aria-live="polite"></p>
              <ul id="trash" class="notes" tabindex="-1" aria-label="In the trash">\(rows)</ul>
              <p id="empty" class="empty"\(items.isEmpty ? "" : " hidden")>The trash is empty.</p>
            </main>
            """)
    }

    /// `3.2 MB`, for a line of facts.
    static func size(_ bytes: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)
    }
}
