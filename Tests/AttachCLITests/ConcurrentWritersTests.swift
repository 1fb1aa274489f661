import Foundation
import Testing
import TestSupport

/// Several processes writing to one store folder at once: two `attach import` runs and an
/// `attach serve` taking HTTP uploads.
@Suite("Concurrent writers", .timeLimit(.minutes(3)))
struct ConcurrentWritersTests {
    /// HTTP clients uploading at once while the importers run.
    static let clients = 3
    /// Uploads each client sends.
    static let uploadsPerClient = 6

    @Test("two importers and a serving server writing to one store at once lose nothing")
    func importersAndServerLoseNothing() async throws {
        let directory = try TemporaryDirectory("concurrent-writers")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let importNotes = [try await Attach.addNote("import one", store: store), try await Attach.addNote("import two", store: store)]
        let server = try await ServerProcess(store: store, port: try ServerProcess.freePort())
        let uploadNote = try #require(try await Self.createNote("uploads", on: server))
        let fifty = try Corpus.files(in: "fifty")
        // The importers share five photos, and the uploads include photos the importers also
        // store, so both processes race to create the same blobs.
        let batches = [Array(fifty[0..<15]), Array(fifty[10..<25])]
        let uploadPhotos = try (Corpus.files(in: "good").filter { $0.pathExtension == "jpg" } + fifty[12..<16]).map {
            (name: $0.lastPathComponent, data: try Data(contentsOf: $0))
        }

        let importers = try zip(importNotes, batches).map { note, files in
            try Attach.start(["import", "--json", "--note", note] + files.map { $0.path(percentEncoded: false) }, store: store)
        }
        let uploads: [(id: String, hash: String)]
        do {
            uploads = try await withThrowingTaskGroup(of: [(id: String, hash: String)].self) { group in
                for _ in 0..<Self.clients {
                    group.addTask { try await Self.upload(uploadPhotos, count: Self.uploadsPerClient, to: uploadNote, on: server) }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
        } catch {
            await server.stop()
            throw error
        }

        var expected = uploads
        for (importer, files) in zip(importers, batches) {
            let outcome = await importer.wait()
            #expect(outcome.exitCode == 0, "\(outcome.stderr)")
            let lines = Attach.importedLines(outcome.stdout)
            #expect(lines.count == files.count, "every file of the import is acknowledged")
            for line in lines {
                let id = try #require(line.attachment["id"] as? String)
                expected.append((id, try Files.sha256(URL(filePath: line.file))))
            }
        }
        #expect(uploads.count == Self.clients * Self.uploadsPerClient, "every upload is acknowledged")

        // Every acknowledged attachment reads back byte for byte, and each note holds exactly its own.
        do {
            for (id, hash) in expected {
                let (status, body) = try await server.get("/api/attachments/\(id)/original")
                #expect(status == 200, "original of \(id) answered \(status)")
                #expect(HTTP.sha256(body) == hash, "\(id) is byte-identical to what was acknowledged")
            }
            for (note, count) in zip(importNotes + [uploadNote], batches.map(\.count) + [uploads.count]) {
                let listed = try await server.json("/api/notes/\(note)/attachments")["attachments"] as? [Any]
                #expect(listed?.count == count, "note \(note) holds \(listed?.count ?? -1) attachments, expected \(count)")
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        let verify = try await Attach.run(["verify"], store: store)
        #expect(verify.exitCode == 0, "\(verify.stdout)\(verify.stderr)")
        print("concurrent writers figures: \(expected.count) attachments acknowledged "
              + "(\(expected.count - uploads.count) imported by 2 processes, \(uploads.count) uploaded by \(Self.clients) clients), "
              + "all byte-identical; verify exit \(verify.exitCode.map(String.init) ?? "signal")")
    }

    /// Creates a note through the API; returns its id.
    static func createNote(_ title: String, on server: ServerProcess) async throws -> String? {
        let (status, body) = try await HTTP.send("POST", "\(server.url)/api/notes",
                                                 body: try JSONSerialization.data(withJSONObject: ["title": title]),
                                                 contentType: "application/json")
        return status == 201 ? HTTP.object(body)?["id"] as? String : nil
    }

    /// Uploads `count` photos picked at random (half with random bytes after the image, so new
    /// blobs); returns the acknowledged ones with the hash of the bytes sent.
    static func upload(_ photos: [(name: String, data: Data)], count: Int, to note: String,
                       on server: ServerProcess) async throws -> [(id: String, hash: String)] {
        var acknowledged: [(id: String, hash: String)] = []
        for _ in 0..<count {
            let photo = photos.randomElement()!
            var data = photo.data
            if Bool.random() { data.append(contentsOf: (0..<32).map { _ in UInt8.random(in: 0...255) }) }
            let (status, body) = try await HTTP.send("POST", "\(server.url)/api/notes/\(note)/attachments?filename=\(photo.name)",
                                                     body: data, contentType: "image/jpeg")
            #expect(status == 201, "upload answered \(status): \(String(decoding: body, as: UTF8.self))")
            if status == 201, let id = HTTP.object(body)?["id"] as? String { acknowledged.append((id, HTTP.sha256(data))) }
        }
        return acknowledged
    }
}
