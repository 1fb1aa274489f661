import AttachmentStore
import Foundation
import Testing
import TestSupport

/// The Swift samples of the manual, compiled and run as written: `make docs-test` checks that
/// each sample in `docs/` appears verbatim in a test, and these are the tests. A sample names its
/// files relative to where it runs; here `URL(filePath:)` is a local function that puts them in
/// the test's own folder, so the sample's text stays what a reader types.
@Suite("The manual's Swift samples", .timeLimit(.minutes(2)))
struct DocsSwiftSamplesTests {
    /// A progress bar's stand-in.
    final class ProgressBar {
        var value = 0.0
    }

    @Test("docs/development.md, The library: create, attach, stream, copy, and the key-value image store")
    func librarySample() async throws {
        let folder = try TemporaryDirectory("docs-library")
        try FileManager.default.copyItem(at: try Corpus.file("good/Dune.jpg"), to: folder.appending("IMG_0001.jpg"))
        let pngData = try Data(contentsOf: try Corpus.file("good/Flow.png"))
        func URL(filePath path: String) -> Foundation.URL { folder.appending(path) }

        let store = try await AttachmentStore.create(at: URL(filePath: "attach-data"))
        let note = try await store.createNote(title: "Garden", body: "Spring")
        let photo = try await store.addAttachment(to: note.id, fromFile: URL(filePath: "IMG_0001.jpg"),
                                                  metadata: ["camera": "X100V"])
        for try await chunk in try await store.original(of: photo.id).chunks() { _ = chunk }  // streamed, 256 KiB at a time
        try await store.original(of: photo.id).write(to: URL(filePath: "copy.jpg"))           // verified copy
        try await store.setImage(pngData, forKey: "avatar")                                    // key-value image store
        let avatar = try await store.image(forKey: "avatar")                                    // memory cache, then disk

        #expect(try Files.identical(URL(filePath: "IMG_0001.jpg"), URL(filePath: "copy.jpg")))
        #expect(avatar == pngData)
        #expect(photo.metadata["camera"] == "X100V")
    }

    @Test("docs/user-guide.md, thumbnails and the original streamed with progress")
    func thumbnailAndStreamSample() async throws {
        let fixture = try await StoreFixture("docs-stream")
        let store = fixture.store
        let note = try await store.createNote(title: "Garden")
        let photo = try await store.addAttachment(to: note.id, fromFile: try Corpus.file("good/Dune.jpg"))
        let progress = ProgressBar()

        let thumbnail = try await store.thumbnail(for: photo.id)                  // 200 px, from cache when it can
        for try await chunk in try await store.originalStream(for: photo.id) {   // cancellable between chunks
            progress.value = chunk.fraction
        }

        #expect(max(thumbnail.width, thumbnail.height) == 200)
        #expect(progress.value == 1)
    }
}
