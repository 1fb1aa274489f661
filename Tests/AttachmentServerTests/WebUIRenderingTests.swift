@testable import AttachmentServer
import AttachmentStore
import Foundation
import Hummingbird
import NIOCore
import Testing
import TestSupport

/// The web UI's HTML, rendered without a server from values made in memory: escaping, the
/// shared page frame, the notes list (pager links, empty states, dates), a note's gallery
/// tiles (thumbnail addresses, aspect ratios, placeholders for bytes on a peer, state
/// badges), the login page, the 404 page, and the versioned static asset addresses.
@Suite("Web UI rendering")
struct WebUIRenderingTests {
    static let noteID = NoteID(rawValue: "0b7e1c7a-1111-4222-8333-444455556666")
    static let attachmentID = AttachmentID(rawValue: "a77ac4ed-1111-4222-8333-444455556666")
    static let hash = BlobHash(rawValue: String(repeating: "5e", count: 32))!
    static let date = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18 11:06:40 UTC

    static func assets() async throws -> StaticAssets { StaticAssets.load() }

    static func note(title: String = "Trip", body: String = "", id: NoteID = noteID, updatedAt: Date = date) -> Note {
        Note(id: id, title: title, body: body, createdAt: date, updatedAt: updatedAt)
    }

    static func attachment(
        filename: String = "beach.jpg", mediaType: String = "image/jpeg", byteCount: Int64 = 1_000,
        image: StoredAttachment.ImageInfo? = .init(width: 4000, height: 3000, orientation: 1), state: StoredAttachment.State = .present
    ) -> StoredAttachment {
        StoredAttachment(id: attachmentID, noteID: noteID, position: 0, blobHash: hash, byteCount: byteCount, mediaType: mediaType,
                   filename: filename, image: image, metadata: [:], createdAt: date, updatedAt: date, state: state)
    }

    // MARK: - Escaping and the page frame

    @Test("escaping replaces the five characters that matter in content and quoted attributes, and nothing else", arguments: [
        ("plain text", "plain text"),
        ("<script>alert('x')</script>", "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"),
        ("\"><img src=x onerror=y>", "&quot;&gt;&lt;img src=x onerror=y&gt;"),
        ("a & b &amp; c", "a &amp; b &amp;amp; c"),
        ("Ünïcödé 📷 — “quotes”", "Ünïcödé 📷 — “quotes”"),
        ("", ""),
        ("e\u{301}<", "e\u{301}&lt;"),
    ])
    func escape(text: String, escaped: String) {
        #expect(HTML.escape(text) == escaped)
    }

    @Test("a page has the shared head with versioned assets, its escaped title and body class, and scripts only when asked")
    func pageFrame() async throws {
        let assets = try await Self.assets()
        let page = HTML.page(title: "<Trip> & more", assets: assets, bodyClass: "note-page", body: "<main>hi</main>")
        #expect(page.hasPrefix("<!doctype html>"))
        #expect(page.contains("<title>&lt;Trip&gt; &amp; more</title>"))
        #expect(page.contains(#"<link rel="stylesheet" href="\#(assets.url("app.css"))">"#))
        #expect(page.contains(#"<script src="\#(assets.url("app.js"))" defer></script>"#))
        #expect(page.contains(#"<script src="\#(assets.url("resumable-upload.js"))" data-digest-worker="\#(assets.url("digest-worker.js"))" defer></script>"#))
        #expect(page.contains(#"<body class="note-page">"#))
        #expect(page.contains("<main>hi</main>"))
        let bare = HTML.page(title: "Log in", assets: assets, bodyClass: "login-page", script: false, body: "")
        #expect(!bare.contains("<script"))
        #expect(bare.contains(assets.url("app.css")))
    }

    // MARK: - Static assets

    @Test("every static file has an address carrying a hex digest of its bytes, the same on every load")
    func assetAddresses() async throws {
        let first = try await Self.assets()
        let second = try await Self.assets()
        var versions: Set<String> = []
        for name in ["app.css", "app.js", "resumable-upload.js", "digest-worker.js", "icon.svg", "openapi.yaml"] {
            let asset = try #require(first[name], "\(name)")
            #expect(first.url(name) == "/static/\(name)?v=\(asset.version)")
            #expect(!asset.version.isEmpty && asset.version.allSatisfy(\.isHexDigit))
            #expect(second[name]?.version == asset.version, "\(name) digest is stable")
            #expect(asset.bytes.readableBytes > 0)
            versions.insert(asset.version)
        }
        #expect(versions.count == 6, "different files have different digests")
        #expect(first.url("no-such-file.js") == "/static/no-such-file.js?v=0")
        #expect(first["no-such-file.js"] == nil)
    }

    @Test("static files are served with the content type of their extension", arguments: [
        ("app.css", "text/css; charset=utf-8"), ("app.js", "text/javascript; charset=utf-8"),
        ("resumable-upload.js", "text/javascript; charset=utf-8"), ("digest-worker.js", "text/javascript; charset=utf-8"),
        ("icon.svg", "image/svg+xml"),
        ("openapi.yaml", "application/yaml; charset=utf-8"),
    ])
    func assetTypes(name: String, type: String) async throws {
        #expect(try await Self.assets()[name]?.contentType == type)
    }

    // MARK: - Notes list

    @Test("dates are shown as UTC minutes, the seconds cut", arguments: [
        (0, "1970-01-01 00:00"), (1_795_000_000, "2026-11-18 11:06"), (1_795_000_059.9, "2026-11-18 11:07"),
        (951_825_600, "2000-02-29 12:00"),
    ] as [(TimeInterval, String)])
    func displayDates(seconds: TimeInterval, shown: String) {
        #expect(NotesListPage.display(Date(timeIntervalSince1970: seconds)) == shown)
    }

    @Test("each note links to its page with its escaped title, Untitled when it has none, and the first 160 characters of its text")
    func noteItems() async throws {
        let other = NoteID(rawValue: "0b7e1c7a-9999-4222-8333-444455556666")
        let body = String(repeating: "a", count: 160) + "TAIL"
        let page = NotesListPage(notes: [Self.note(title: "<b>Beach</b>", body: body), Self.note(title: "", id: other)], previews: [:],
                                 query: "", isLaterPage: false, assets: try await Self.assets()).html
        #expect(page.contains(#"<a class="note-link" href="/notes/\#(Self.noteID.rawValue)">"#))
        #expect(page.contains(#"<span class="note-title">&lt;b&gt;Beach&lt;/b&gt;</span>"#))
        #expect(page.contains(#"<span class="note-title">Untitled</span>"#))
        #expect(page.contains(String(repeating: "a", count: 160) + "</span>"))
        #expect(!page.contains("TAIL"))
        #expect(page.contains(#"<time datetime="2026-11-18T11:06:40Z">2026-11-18 11:06</time>"#))
        #expect(page.contains(#"<p id="empty" class="empty" hidden>"#))
    }

    @Test("an empty list says how to make a note, or that nothing matches the escaped search")
    func emptyStates() async throws {
        let assets = try await Self.assets()
        let none = NotesListPage(notes: [], previews: [:], query: "", isLaterPage: false, assets: assets).html
        #expect(none.contains(#"<p id="empty" class="empty">No notes yet. Make one with “New note”.</p>"#))
        let unmatched = NotesListPage(notes: [], previews: [:], query: "<x>", isLaterPage: false, assets: assets).html
        #expect(unmatched.contains("No note matches “&lt;x&gt;”."))
        #expect(unmatched.contains(#"name="q" type="search" value="&lt;x&gt;""#))
    }

    @Test("the pager follows a cursor: “More notes” names the last note of a full page, keeping the search; a later page links to the first")
    func pager() async throws {
        let assets = try await Self.assets()
        let full = (0..<2).map { index in Self.note(id: NoteID(rawValue: "0b7e1c7a-0000-4222-8333-00000000000\(index)")) }
        let cursor = NoteCursor(after: full[1]).description
        let first = NotesListPage(notes: full, previews: [:], query: "", isLaterPage: false, assets: assets, limit: 2)
        #expect(first.html.contains(#"<nav class="pager" aria-label="More notes"><a id="notes-more" class="button" href="/?after=\#(cursor)">More notes</a></nav>"#))
        #expect(first.fragment.hasPrefix(#"<ul class="notes-fragment" data-next="\#(cursor)">"#))
        let middle = NotesListPage(notes: full, previews: [:], query: "sea & sand", isLaterPage: true, assets: assets, limit: 2).html
        #expect(middle.contains(#"<a href="/?q=sea%20%26%20sand">First page</a>"#))
        #expect(middle.contains(#"href="/?q=sea%20%26%20sand&amp;after=\#(cursor)">More notes</a>"#))
        let only = NotesListPage(notes: Array(full.prefix(1)), previews: [:], query: "", isLaterPage: false, assets: assets, limit: 2)
        #expect(only.html.contains(#"<nav class="pager" aria-label="More notes"></nav>"#))
        #expect(only.fragment.hasPrefix(#"<ul class="notes-fragment">"#))
    }

    @Test("a search marks the start of each word it found, escaped, and the text line starts near a match deep in the body")
    func searchHighlight() {
        let highlight = SearchHighlight(query: "gard PHO")
        #expect(highlight.html("Garden photos & <photographs>, graph") ==
                "<mark>Gard</mark>en <mark>pho</mark>tos &amp; &lt;<mark>pho</mark>tographs&gt;, graph")
        #expect(SearchHighlight(query: "").html("<b>") == "&lt;b&gt;")
        let body = String(repeating: "filler ", count: 40) + "the garden at dusk"
        let excerpt = NotesListPage.excerpt(of: body, highlight: highlight)
        #expect(excerpt.hasPrefix("…") && excerpt.contains("garden at dusk"))
        #expect(NotesListPage.excerpt(of: "short garden", highlight: highlight) == "short garden")
    }

    @Test("a note with attachments shows their count and its first thumbnails; one on a peer an empty square")
    func noteStrip() async throws {
        let present = Self.attachment()
        let remote = Self.attachment(state: .remote)
        let preview = AttachmentPreview(count: 9, first: [present, remote])
        let page = NotesListPage(notes: [Self.note()], previews: [Self.noteID: preview], query: "", isLaterPage: false,
                                 assets: try await Self.assets()).html
        #expect(page.contains(#"<span class="note-count">9 attachments</span>"#))
        #expect(page.contains(#"<img loading="lazy" decoding="async" alt="" src="/api/attachments/\#(Self.attachmentID.rawValue)/thumbnail?v=\#(Self.hash.rawValue)&amp;size=200">"#))
        #expect(page.contains(#"<span class="strip-file"></span>"#))
    }

    // MARK: - Note page and tiles

    @Test("a stored photo's tile loads its 200 px thumbnail lazily with a 400 px 2x source, and keeps its aspect")
    func presentTile() {
        let tile = NoteDetailPage.tile(for: Self.attachment())
        let thumbnail = "/api/attachments/\(Self.attachmentID.rawValue)/thumbnail?v=\(Self.hash.rawValue)"
        #expect(tile.contains(#"<li class="tile" data-id="\#(Self.attachmentID.rawValue)">"#))
        #expect(tile.contains(#"<img loading="lazy" decoding="async" alt="beach.jpg" src="\#(thumbnail)&amp;size=200""#))
        #expect(tile.contains(#"srcset="\#(thumbnail)&amp;size=200 1x, \#(thumbnail)&amp;size=400 2x""#))
        #expect(tile.contains(#"data-aspect="4000 / 3000""#))
        #expect(tile.contains(#"data-original="/api/attachments/\#(Self.attachmentID.rawValue)/original?v=\#(Self.hash.rawValue)""#))
        #expect(tile.contains(#"data-display="/api/attachments/\#(Self.attachmentID.rawValue)/original?v="#), "a small JPEG is shown as itself")
        #expect(tile.contains(#"data-image="true""#))
        #expect(!tile.contains("data-availability") && !tile.contains("class=\"fetch\"") && !tile.contains("class=\"badge\""))
    }

    @Test("a photo turned on its side by EXIF (orientations 5 to 8) swaps its aspect", arguments: [
        (1, "4000 / 3000"), (3, "4000 / 3000"), (4, "4000 / 3000"), (5, "3000 / 4000"), (6, "3000 / 4000"), (8, "3000 / 4000"),
    ])
    func aspect(orientation: Int, aspect: String) {
        let tile = NoteDetailPage.tile(for: Self.attachment(image: .init(width: 4000, height: 3000, orientation: orientation)))
        #expect(tile.contains(#"data-aspect="\#(aspect)""#))
    }

    @Test("a large or undrawable image is displayed through its 2048 px rendition", arguments: [
        ("image/jpeg", 9 << 20), ("image/heic", 1_000), ("image/tiff", 1_000),
    ] as [(String, Int64)])
    func renditionDisplay(mediaType: String, byteCount: Int64) {
        let tile = NoteDetailPage.tile(for: Self.attachment(mediaType: mediaType, byteCount: byteCount))
        #expect(tile.contains(#"data-display="/api/attachments/\#(Self.attachmentID.rawValue)/thumbnail?v=\#(Self.hash.rawValue)&amp;size=2048""#))
    }

    @Test("a file that is no image has an icon naming its subtype, no thumbnail, and opens its original")
    func fileTile() {
        let tile = NoteDetailPage.tile(for: Self.attachment(filename: "notes.pdf", mediaType: "application/pdf", image: nil))
        #expect(tile.contains(#"<span class="file-icon">pdf</span>"#))
        #expect(!tile.contains("<img"))
        #expect(tile.contains(#"data-image="false""#))
        #expect(tile.contains(#"data-display="/api/attachments/\#(Self.attachmentID.rawValue)/original?v=\#(Self.hash.rawValue)""#))
    }

    @Test("an image whose bytes are on a peer waits for the script: data-src, no lazy loading, a progress ring and a badge")
    func remoteTile() {
        let tile = NoteDetailPage.tile(for: Self.attachment(state: .remote))
        #expect(tile.contains(#"data-availability="remote""#))
        #expect(tile.contains(#"data-src="/api/attachments/"#) && tile.contains(#"data-srcset="/api/attachments/"#))
        #expect(!tile.contains(" src=\"") && !tile.contains("loading=\"lazy\""))
        #expect(tile.contains(NoteDetailPage.fetchRing(name: "beach.jpg")))
        #expect(tile.contains(#"<span class="badge" data-state="remote""#) && tile.contains(">on a peer</span>"))
    }

    @Test("a file on a peer that is no image gets a badge but no ring, as there is no thumbnail to wait for")
    func remoteFileTile() {
        let tile = NoteDetailPage.tile(for: Self.attachment(filename: "a.zip", mediaType: "application/zip", image: nil, state: .evicted))
        #expect(!tile.contains("data-availability") && !tile.contains("class=\"fetch\""))
        #expect(tile.contains(#"data-state="evicted""#))
    }

    @Test("a hostile file name is escaped everywhere it appears in a tile")
    func hostileFilename() {
        let name = #""><script>alert('x')</script>.jpg"#
        let tile = NoteDetailPage.tile(for: Self.attachment(filename: name, state: .remote))
        #expect(!tile.contains("<script>"))
        #expect(!tile.contains("alert('x')"))
        let escaped = HTML.escape(name)
        #expect(tile.components(separatedBy: escaped).count - 1 == 5, "alt, data-filename, aria-label, ring label and tile name")
    }

    @Test("every state but present has a badge with its word and an explanation", arguments: [
        (StoredAttachment.State.remote, "on a peer"), (.fetching, "fetching"), (.evicted, "evicted"), (.damaged, "damaged"),
    ])
    func badges(state: StoredAttachment.State, word: String) {
        let badge = NoteDetailPage.stateBadge(state)
        #expect(badge.hasPrefix(#"<span class="badge" data-state="\#(state.rawValue)" title=""#))
        #expect(badge.hasSuffix(">\(word)</span> "))
        #expect(!badge.contains(#"title="""#))
        #expect(NoteDetailPage.stateBadge(.present).isEmpty)
    }

    @Test("the fetch ring starts at 0 of 100 and names the file")
    func fetchRing() {
        let ring = NoteDetailPage.fetchRing(name: "a &amp; b.jpg")
        #expect(ring.contains(#"role="progressbar" aria-label="Fetching a &amp; b.jpg from a peer""#))
        #expect(ring.contains(#"aria-valuemin="0" aria-valuemax="100" aria-valuenow="0""#))
        #expect(ring.contains(#"stroke-dasharray="0 100""#))
        #expect(ring.contains(#"<span class="ring-label">0%</span>"#))
    }

    @Test("a note page holds the escaped title and text in its fields, the note id, and one tile per attachment in order")
    func notePage() async throws {
        let second = StoredAttachment(id: AttachmentID(rawValue: "b0000000-1111-4222-8333-444455556666"), noteID: Self.noteID, position: 1,
                                blobHash: Self.hash, byteCount: 5, mediaType: "text/plain", filename: "b.txt", image: nil,
                                metadata: [:], createdAt: Self.date, updatedAt: Self.date, state: .present)
        let page = NoteDetailPage(note: Self.note(title: "A \"quoted\" <title>", body: "line </textarea><script>"),
                                  gallery: GalleryPage(attachments: [Self.attachment(), second], next: nil), assets: try await Self.assets()).html
        #expect(page.contains("<title>A &quot;quoted&quot; &lt;title&gt;</title>"))
        #expect(page.contains(#"value="A &quot;quoted&quot; &lt;title&gt;""#))
        #expect(page.contains("line &lt;/textarea&gt;&lt;script&gt;</textarea>"))
        #expect(page.contains(#"data-note-id="\#(Self.noteID.rawValue)""#))
        let first = try #require(page.range(of: #"data-id="\#(Self.attachmentID.rawValue)""#))
        let then = try #require(page.range(of: #"data-id="b0000000-1111-4222-8333-444455556666""#))
        #expect(first.lowerBound < then.lowerBound)
        let untitled = NoteDetailPage(note: Self.note(title: ""), gallery: GalleryPage(attachments: [], next: nil), assets: try await Self.assets()).html
        #expect(untitled.contains("<title>Untitled</title>"))
        #expect(untitled.contains(#"<ul id="gallery" class="gallery"></ul>"#))
    }

    // MARK: - Login and 404 pages

    @Test("the login page posts the token with the escaped return address, says so after a wrong token, and has no script")
    func loginPage() async throws {
        let assets = try await Self.assets()
        let fresh = LoginPage(next: "/notes/x?a=1&b=\"2\"", failed: false, assets: assets).html
        #expect(fresh.contains(#"<input type="hidden" name="next" value="/notes/x?a=1&amp;b=&quot;2&quot;">"#))
        #expect(fresh.contains(#"<form method="post" action="/login">"#))
        #expect(fresh.contains(#"type="password""#))
        #expect(!fresh.contains("login-error"))
        #expect(!fresh.contains("<script"))
        let failed = LoginPage(next: "/", failed: true, assets: assets).html
        #expect(failed.contains(#"<p class="login-error" role="alert">"#))
        #expect(LoginPage.assetNames == ["app.css", "icon.svg"])
    }

    @Test("a missing note's page is a 404 HTML page, revalidated on every visit, with a way back and a way to the trash")
    func notFoundPage() async throws {
        let response = WebUIRoutes.notFoundPage(try await Self.assets())
        #expect(response.status == .notFound)
        #expect(response.headers[.contentType] == "text/html; charset=utf-8")
        #expect(response.headers[.cacheControl] == "no-cache")
        let html = String(decoding: try await BodyCollector.bytes(of: response), as: UTF8.self)
        #expect(html.contains("<h1>No such note</h1>"))
        #expect(html.contains(#"<a href="/">back to the notes</a>"#))
        #expect(html.contains(#"<a href="/trash">trash</a>"#), "a deleted note is looked for in the trash")
    }
}
