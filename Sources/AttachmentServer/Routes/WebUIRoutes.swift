import AttachmentStore
import Hummingbird

/// The web UI's pages, rendered on the server: `/` (notes and search; its later pages as an
/// HTML fragment at `/notes-page`), `/notes/{id}`, the
/// later pages of a note's gallery, `/notes/{id}/gallery?after=P` (an HTML fragment of tiles),
/// and `/trash`.
struct WebUIRoutes {
    let dependencies: ServerDependencies

    func register(on router: some RouterMethods<AppRequestContext>) {
        router.get("/", use: home)
        router.get("notes-page", use: notesFragment)
        router.get("notes/:id", use: note)
        router.get("notes/:id/gallery", use: galleryPage)
        router.get("trash", use: trash)
    }

    @Sendable func trash(_ request: Request, context: AppRequestContext) async throws -> Response {
        Self.html(TrashPage(items: try await dependencies.store.trash(), assets: dependencies.assets).html)
    }

    @Sendable func home(_ request: Request, context: AppRequestContext) async throws -> Response {
        // The feed's position is read first: a change made while the page is read is then after it.
        let feed = try await dependencies.store.changeFeedPosition()
        return Self.html(try await notesPage(request, feed: feed).html)
    }

    /// The notes after `?after=` that `?q=` finds, in the order `?sort=` names, as the items of the notes list (an HTML
    /// fragment, ``NotesListPage/fragment``) for the page script's live search and "More notes".
    @Sendable func notesFragment(_ request: Request, context: AppRequestContext) async throws -> Response {
        Self.html(try await notesPage(request, feed: nil).fragment)
    }

    private func notesPage(_ request: Request, feed: Int64?) async throws -> NotesListPage {
        try await NotesListPage.read(try NoteListQuery(request.uri.queryParameters), from: dependencies.store, assets: dependencies.assets, feed: feed)
    }

    @Sendable func note(_ request: Request, context: AppRequestContext) async throws -> Response {
        do {
            let id = try context.noteID()
            let feed = try await dependencies.store.changeFeedPosition()
            let note = try await dependencies.store.note(id)
            let gallery = try await GalleryPage.first(note: id, from: dependencies.store)
            return Self.html(NoteDetailPage(note: note, gallery: gallery, assets: dependencies.assets, feed: feed).html)
        } catch let error as ServerError where error.status == .notFound {
            return Self.notFoundPage(dependencies.assets)
        } catch AttachmentStore.Error.noteNotFound {
            return Self.notFoundPage(dependencies.assets)
        }
    }

    /// The tiles after position `after` of a note's gallery, as an HTML fragment (see
    /// ``GalleryPage``); with `?attachment=ID`, that attachment's tile alone (none when it is not
    /// in the note's gallery), for the live page to add what changed elsewhere — a change carries
    /// the attachment's stored position, which is not its rank in a gallery that has some in the
    /// trash. 404 for a note that does not exist.
    @Sendable func galleryPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.noteID()
        if let text = request.uri.queryParameters.get("attachment") {
            let attachment = AttachmentID(rawValue: try Identifier.parse(String(text), kind: "attachment"))
            _ = try await dependencies.store.note(id)  // 404 for a note that does not exist
            let shown: [Attachment]
            do {
                // Its place in the gallery (its rank): the tile there is it, unless it is in the trash.
                let found = try await dependencies.store.attachment(attachment)
                let place = found.noteID == id
                    ? try await dependencies.store.attachments(of: id, after: found.position > 0 ? found.position - 1 : nil, limit: 1) : []
                shown = place.filter { $0.id == attachment }
            } catch AttachmentStore.Error.attachmentNotFound {
                shown = []
            }
            return Self.html(GalleryPage(attachments: shown, next: nil).fragment)
        }
        let after = try request.uri.queryParameters.get("after").map { try QueryInteger.parse($0, name: "after", default: 0, range: 0...Int(Int32.max)) }
        return Self.html(try await GalleryPage.read(note: id, after: after, from: dependencies.store).fragment)
    }

    /// A page for a note that does not exist (deleted, or a mistyped address), with a way back.
    static func notFoundPage(_ assets: StaticAssets) -> Response {
        Self.html(HTML.page(title: "No such note", assets: assets, bodyClass: "missing-page", body: """
            <header class="bar"><a href="/" class="back">← Notes</a></header>
            <main><h1>No such note</h1><p>It may have been deleted: look in the <a href="/trash">trash</a>,             or go <a href="/">back to the notes</a>.</p></main>
            """), status: .notFound)
    }

    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }
}
