import AttachmentStore
import Foundation
import Testing
import TestSupport

@Suite("Streaming originals", .timeLimit(.minutes(3)))
struct OriginalStreamTests {
    @Test("chunks report growing progress that ends at the total")
    func progressReachesTotal() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "stream")
        let source = try Corpus.file("special/large-16mb.jpg")
        let photo = try await fixture.store.addAttachment(to: note.id, fromFile: source)
        var received = Data()
        var last: Int64 = 0
        for try await chunk in try await fixture.store.originalStream(for: photo.id) {
            #expect(chunk.completed > last)
            #expect(chunk.total == photo.byteCount)
            last = chunk.completed
            received.append(contentsOf: chunk.bytes)
        }
        #expect(last == photo.byteCount)
        #expect(received == (try Data(contentsOf: source)))
    }

    @Test("a cancelled load stops at the next chunk")
    func cancellationStopsPromptly() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "cancel")
        let photo = try await fixture.store.addAttachment(to: note.id, fromFile: Corpus.file("special/large-16mb.jpg"))
        let stream = try await fixture.store.originalStream(for: photo.id, chunkSize: 64 << 10)
        let load = Task {
            var chunks = 0
            for try await _ in stream {
                chunks += 1
                if chunks == 3 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return chunks
        }
        await #expect(throws: CancellationError.self) { try await load.value }
    }
}
