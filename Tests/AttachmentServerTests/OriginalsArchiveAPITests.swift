@testable import AttachmentServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// `GET /api/notes/{id}/originals.zip`: a note's originals (or the chosen ones) as one zip.
@Suite("Originals as a zip")
struct OriginalsArchiveAPITests {
    @Test("the zip holds each original byte for byte, in the note's order, two files of one name kept apart")
    func zipHoldsOriginalsInOrder() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote(title: "Trip / 2026")
            let first = try await client.upload("special/baseline.jpg", to: note.id)
            let second = try await client.upload("special/photo.png", to: note.id, contentType: "image/png")
            let third = try await client.upload("special/progressive.jpg", to: note.id)
            // The third under the first's name.
            _ = try await client.execute(uri: "/api/attachments/\(third.id)/data?filename=baseline.jpg", method: .put,
                                         headers: [.contentType: "image/jpeg"],
                                         body: ByteBuffer(data: try Data(contentsOf: try Corpus.file("special/progressive.jpg"))))

            let whole = try await client.execute(uri: "/api/notes/\(note.id)/originals.zip", method: .get)
            #expect(whole.status == .ok)
            #expect(whole.headers[.contentType] == "application/zip")
            #expect(whole.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"Trip _ 2026.zip\"") == true)
            let directory = try TemporaryDirectory("originals-zip")
            let archive = directory.appending("trip.zip")
            try Data(buffer: whole.body).write(to: archive)
            let files = try await ZipStreamTests.unpack(archive, in: directory)
            #expect(files == [
                "baseline.jpg": try Data(contentsOf: try Corpus.file("special/baseline.jpg")),
                "photo.png": try Data(contentsOf: try Corpus.file("special/photo.png")),
                "baseline (2).jpg": try Data(contentsOf: try Corpus.file("special/progressive.jpg")),
            ])
            let list = try await ChildProcess.run("/usr/bin/unzip", ["-Z1", archive.path(percentEncoded: false)])
            #expect(list.stdout.split(separator: "\n") == ["baseline.jpg", "photo.png", "baseline (2).jpg"], "in the note's order")

            // Chosen ones, named in any order, come in the note's order.
            let chosen = try await client.execute(uri: "/api/notes/\(note.id)/originals.zip?ids=\(third.id),\(first.id.uppercased())", method: .get)
            #expect(chosen.status == .ok)
            let picked = directory.appending("picked.zip")
            try Data(buffer: chosen.body).write(to: picked)
            let names = try await ChildProcess.run("/usr/bin/unzip", ["-Z1", picked.path(percentEncoded: false)])
            #expect(names.stdout.split(separator: "\n") == ["baseline.jpg", "baseline (2).jpg"])
            _ = second
        }
    }

    @Test("ids that are malformed are a 400; one of another note's, or unknown, a 404; a note in the trash a 404")
    func wrongIdsAreRefusedBeforeAnyByte() async throws {
        try await ServerFixture().test { client in
            let note = try await client.createNote(title: "Mine")
            let other = try await client.createNote(title: "Other")
            let mine = try await client.upload("special/baseline.jpg", to: note.id)
            let theirs = try await client.upload("special/baseline.jpg", to: other.id)
            let zip = { (query: String) in try await client.execute(uri: "/api/notes/\(note.id)/originals.zip\(query)", method: .get) }
            for malformed in ["?ids=", "?ids=..%2F..%2Fetc", "?ids=\(mine.id),", "?ids=\(mine.id);\(mine.id)"] {
                let response = try await zip(malformed)
                #expect(response.status == .badRequest, "\(malformed)")
                #expect(JSON.errorCode(response) == "invalid_query")
            }
            let foreign = try await zip("?ids=\(mine.id),\(theirs.id)")
            #expect(foreign.status == .notFound && JSON.errorCode(foreign) == "attachment_not_found")
            let unknown = try await zip("?ids=\(UUID().uuidString)")
            #expect(unknown.status == .notFound)
            _ = try await client.execute(uri: "/api/notes/\(other.id)", method: .delete)
            let trashed = try await client.execute(uri: "/api/notes/\(other.id)/originals.zip", method: .get)
            #expect(trashed.status == .notFound && JSON.errorCode(trashed) == "note_not_found")
        }
    }
}
