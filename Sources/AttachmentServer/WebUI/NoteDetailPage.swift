import AttachmentStore
import Foundation

/// A note's page: title and body editing with the note's earlier versions, the photo gallery,
/// imports and the viewer.
///
/// The gallery comes a page at a time: the first ``pageSize`` tiles with the page, the rest as
/// the user scrolls (``GalleryPage``, which the page script asks for at `data-next`), so a
/// note of 2,000 photos costs what one of 100 does until someone scrolls through it.
struct NoteDetailPage {
    /// Tiles in the page, and in each later gallery page.
    static let pageSize = 100

    let note: Note
    /// The first page of the note's attachments.
    let gallery: GalleryPage
    let assets: StaticAssets
    /// The change feed's position when the page was read: the page follows changes from there.
    var feed: Int64?

    var html: String {
        let tiles = gallery.attachments.map { Self.tile(for: $0) }.joined(separator: "\n")
        return HTML.page(title: note.title.isEmpty ? "Untitled" : note.title, assets: assets, bodyClass: "note-page", feed: feed, body: """
            <a class="skip-link" href="#photos-heading">Skip to the photos</a>
            <header class="bar">
              <a href="/" class="back">← Notes</a>
              <span id="save-status" class="status" role="status" aria-live="polite">Saved</span>
              <button type="button" id="delete-note" class="danger">Delete note</button>
            </header>
            <main id="note" data-note-id="\(HTML.escape(note.id.rawValue))">
              <label for="title" class="visually-hidden">Title</label>
              <input id="title" class="title" value="\(HTML.escape(note.title))" placeholder="Title" autocomplete="off">
              <label for="body" class="visually-hidden">Text</label>
              <textarea id="body" class="body" placeholder="Write something" rows="8">\(HTML.escape(note.body))</textarea>
              <details id="history" class="history">
                <summary>Earlier versions</summary>
                <p id="history-status" class="status" role="status" aria-live="polite"></p>
                <ol id="versions" class="versions"></ol>
              </details>
              <section class="photos" aria-labelledby="photos-heading">
                <div class="photos-bar">
                  <h2 id="photos-heading" tabindex="-1">Photos</h2>
                  <input id="import" class="file-input" type="file" multiple>
                  <button type="button" id="select" aria-pressed="false">Select</button>
                  <label class="button primary" for="import">Add photos or files</label>
                  <input id="change" class="file-input" type="file" tabindex="-1" aria-hidden="true">
                </div>
                <div id="drop" class="drop">Drop or paste photos and files here</div>
                <ul id="uploads" class="uploads" aria-label="Uploads"></ul>
                <div id="selection-bar" class="selection-bar" role="toolbar" aria-label="Selected files" hidden>
                  <span id="selection-count" class="selection-count" aria-live="polite">0 selected</span>
                  <button type="button" id="selection-delete" class="danger" data-needs-selection>Delete</button>
                  <label for="move-target" class="visually-hidden">Note to move them to</label>
                  <select id="move-target"><option value="">Move to…</option></select>
                  <button type="button" id="selection-move" data-needs-selection>Move</button>
                  <a id="selection-download" class="button" aria-disabled="true" download>Download</a>
                  <button type="button" id="selection-cancel">Cancel</button>
                </div>
                <ul id="gallery" class="gallery"\(gallery.nextAttribute)>\(tiles)</ul>
                \(gallery.next == nil ? "" : "<p id=\"gallery-more\" class=\"gallery-more\" role=\"status\">More photos below</p>")
              </section>
            </main>
            <dialog id="viewer" class="viewer" aria-label="Photo">
              <div class="viewer-bar">
                <span id="viewer-name" class="viewer-name"></span>
                <span id="viewer-position" class="viewer-position"></span>
                <button type="button" id="viewer-zoom-out" aria-label="Zoom out" disabled>−</button>
                <button type="button" id="viewer-zoom-in" aria-label="Zoom in">+</button>
                <button type="button" id="viewer-live" hidden>▶ Live</button>
                <button type="button" id="viewer-details" aria-expanded="false" aria-controls="viewer-facts">Details</button>
                <a id="viewer-download" class="button" download>Download original</a>
                <button type="button" id="viewer-delete" class="danger">Delete</button>
                <button type="button" id="viewer-done" class="primary">Done</button>
              </div>
              <div id="viewer-stage" class="viewer-stage">
                <div id="viewer-spinner" class="spinner" role="progressbar" aria-label="Loading full image"></div>
                <p id="viewer-progress" class="viewer-progress" role="status"></p>
                <img id="viewer-image" alt="" hidden>
                <video id="viewer-video" controls playsinline preload="metadata" hidden></video>
                <button type="button" id="viewer-previous" class="viewer-step previous" aria-label="Previous photo">‹</button>
                <button type="button" id="viewer-next" class="viewer-step next" aria-label="Next photo">›</button>
                <aside id="viewer-facts" class="viewer-facts" aria-label="Details" hidden><dl id="viewer-facts-list"></dl>
                  <form id="viewer-alt-form" class="viewer-alt"><label for="viewer-alt">Description (alt text)</label>
                  <input id="viewer-alt" maxlength="1000" autocomplete="off" placeholder="What the photo shows">
                  <button type="submit">Save description</button><span id="viewer-alt-status" role="status"></span></form></aside>
              </div>
            </dialog>
            """)
    }

    /// A badge naming where the bytes are, for anything but `present`: on a peer, fetching,
    /// evicted under the storage budget, or damaged (quarantined, never served).
    static func stateBadge(_ state: Attachment.State) -> String {
        let text: String = switch state {
        case .present: ""
        case .remote: "on a peer"
        case .fetching: "fetching"
        case .evicted: "evicted"
        case .damaged: "damaged"
        }
        guard !text.isEmpty else { return "" }
        return "<span class=\"badge\" data-state=\"\(state.rawValue)\" title=\"\(HTML.escape(Self.stateHelp(state)))\">\(text)</span> "
    }

    private static func stateHelp(_ state: Attachment.State) -> String {
        switch state {
        case .present: ""
        case .remote: "Only the record is here; opening it fetches the bytes from a peer."
        case .fetching: "The bytes are on their way from a peer."
        case .evicted: "Dropped here under the storage budget; a peer holds it, and opening it fetches it again."
        case .damaged: "Failed a re-hash and is quarantined; it is repaired from a peer's copy."
        }
    }

    /// One gallery tile, the only place its markup is written: the page script asks for new ones
    /// (uploads, changes made elsewhere) from the gallery fragment, `?attachment=ID`.
    ///
    /// An image whose bytes are on a peer gets a placeholder with a progress ring over its
    /// tile, and its thumbnail address in `data-src`: the page script requests it (which makes
    /// the server fetch the bytes), a few at a time, and removes the ring when it has loaded.
    static func tile(for attachment: Attachment) -> String {
        let resource = AttachmentResource(attachment)
        let name = HTML.escape(attachment.filename)
        let alt = HTML.escape(attachment.metadata[RecordRules.altTextKey] ?? attachment.filename)
        let remote = attachment.availability == .remote && resource.thumbnailUrl != nil
        let picture: String
        if let thumbnail = resource.thumbnailUrl {
            let aspect = attachment.image.map { image in
                image.orientation >= 5 ? "\(image.height) / \(image.width)" : "\(image.width) / \(image.height)"
            } ?? "1"
            let source = remote ? "data-src" : "src"
            picture = """
                <img\(remote ? "" : " loading=\"lazy\"") decoding="async" alt="\(alt)" \(source)="\(HTML.escape(thumbnail))&amp;size=200" \
                \(source)set="\(HTML.escape(thumbnail))&amp;size=200 1x, \(HTML.escape(thumbnail))&amp;size=400 2x" data-aspect="\(aspect)">
                """
        } else {
            picture = "<span class=\"file-icon\">\(HTML.escape(String(attachment.mediaType.split(separator: "/").last ?? "file")))</span>"
        }
        return """
            <li class="tile" data-id="\(HTML.escape(resource.id))"\(remote ? " data-availability=\"remote\"" : "")>\
            <button type="button" class="thumb" data-original="\(HTML.escape(resource.originalUrl))" \
            data-display="\(HTML.escape(resource.displayUrl ?? resource.originalUrl))" \
            \(resource.videoUrl.map { "data-\(attachment.hasMotion ? "motion" : "video")=\"\(HTML.escape($0))\" " } ?? "")\
            data-filename="\(name)" data-media-type="\(HTML.escape(attachment.mediaType))" data-image="\(resource.thumbnailUrl == nil ? "false" : "true")" \
            aria-label="\(attachment.isVideo ? "Play" : "Open") \(name)">\(picture)\(badge(attachment))</button>\(remote ? fetchRing(name: name) : "")\
            <span class="tile-name">\(stateBadge(attachment.state))\(name)</span>\
            <span class="tile-actions">\
            <button type="button" class="change">Change photo</button>\
            <button type="button" class="delete danger">Delete</button></span></li>
            """
    }

    /// The badge over a tile's picture: a video's ▶ and playing time, a Live or motion photo's LIVE, a
    /// PDF's page count; nothing for a photo.
    static func badge(_ attachment: Attachment) -> String {
        if attachment.hasMotion {
            return "<span class=\"tile-badge\">LIVE</span>"
        }
        if attachment.isVideo {
            let time = attachment.image?.durationMilliseconds.map { " " + PlayingTime.text(milliseconds: $0) } ?? ""
            return "<span class=\"tile-badge\" aria-hidden=\"true\">▶\(time)</span>"
        }
        if let pages = attachment.image?.pageCount {
            return "<span class=\"tile-badge\">PDF · \(pages == 1 ? "1 page" : "\(pages) pages")</span>"
        }
        return ""
    }

    /// The placeholder over a tile whose bytes are on a peer: a ring (`role="progressbar"`) that
    /// the page script moves as the bytes arrive. `name` is already escaped. The circle's radius
    /// makes its circumference 100, so `stroke-dasharray="P 100"` draws P percent.
    static func fetchRing(name: String) -> String {
        """
        <div class="fetch"><div class="ring" role="progressbar" aria-label="Fetching \(name) from a peer" \
        aria-valuemin="0" aria-valuemax="100" aria-valuenow="0">\
        <svg viewBox="0 0 36 36" aria-hidden="true" focusable="false">\
        <circle class="ring-track" cx="18" cy="18" r="15.9155"/>\
        <circle class="ring-value" cx="18" cy="18" r="15.9155" stroke-dasharray="0 100"/></svg>\
        <span class="ring-label">0%</span></div></div>
        """
    }
}
