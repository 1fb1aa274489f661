import Foundation
import Testing
import TestSupport

/// A store on a disk that fills up: writes are refused with a clear error, nothing already
/// stored is lost, no partial blob is left, and the store works again once space returns.
///
/// Uses a real 16 MiB tmpfs when the machine lets the tests mount one (root, as in CI). Where
/// it does not, the upload test falls back to `prlimit --fsize` on the server (the write fails
/// with `EFBIG` instead of `ENOSPC`); it prints which method ran. `ATTACH_DISK_FULL=prlimit`
/// forces the fallback.
@Suite("A full disk refuses writes and loses nothing", .serialized, .timeLimit(.minutes(3)))
struct DiskFullTests {
    /// Distinct real photos of about 2 MB: `fifty/photo-10.jpg` … `photo-29.jpg`.
    static func photos() throws -> [(name: String, data: Data)] {
        try (10...29).map { index in
            let name = "photo-\(index).jpg"
            return (name, try Data(contentsOf: Corpus.file("fifty/\(name)")))
        }
    }

    @Test("uploads into a full disk answer 507 storage_failed; stored ones survive; uploads succeed once space returns")
    func uploadIntoFullDiskIsRefusedAndRecovers() async throws {
        if SmallFilesystem.canMount && ProcessInfo.processInfo.environment["ATTACH_DISK_FULL"] != "prlimit" {
            print("disk-full method: tmpfs of 16 MiB (ENOSPC)")
            let disk = try SmallFilesystem(mebibytes: 16)
            let store = disk.url.appending(path: "store")
            try await Attach.initStore(store)
            let server = try await ServerProcess(store: store, port: try ServerProcess.freePort())
            do {
                try await fillThroughUploads(server, expecting: "No space left on device") {
                    try disk.resize(mebibytes: 96)
                    return server
                }
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
            try await expectVerifyClean(store)
        } else {
            print("disk-full method: prlimit --fsize=2000000 on attach serve (EFBIG)")
            let directory = try TemporaryDirectory("disk-full")
            let store = directory.appending("store")
            try await Attach.initStore(store)
            let limited = try await ServerProcess(store: store, port: try ServerProcess.freePort(),
                                                  launcher: ["/usr/bin/prlimit", "--fsize=2000000"])
            var unlimited: ServerProcess?
            do {
                try await fillThroughUploads(limited, expecting: "File too large") {
                    await limited.stop()
                    unlimited = try await ServerProcess(store: store, port: try ServerProcess.freePort())
                    return unlimited!
                }
            } catch {
                await limited.stop()
                await unlimited?.stop()
                throw error
            }
            await limited.stop()
            await unlimited?.stop()
            try await expectVerifyClean(store)
        }
    }

    /// Uploads photos until one is refused, checks the refusal and that nothing was lost, then
    /// calls `makeRoom` (which returns the server to use afterwards) and checks uploads work again.
    private func fillThroughUploads(_ server: ServerProcess, expecting cause: String,
                                    makeRoom: () async throws -> ServerProcess) async throws {
        let noteStatus = try await server.send("POST", "/api/notes", json: ["title": "full disk"])
        #expect(noteStatus == 201)
        let note = try #require(try await server.json("/api/notes")["notes"] as? [[String: Any]]).first?["id"] as? String
        let noteID = try #require(note)
        let photos = try Self.photos()

        var stored: [(id: String, hash: String)] = []
        var refused: (name: String, data: Data)?
        for photo in photos {
            let (status, body) = try await HTTP.send("POST", "\(server.url)/api/notes/\(noteID)/attachments?filename=\(photo.name)",
                                                     body: photo.data, contentType: "image/jpeg")
            if status == 201 {
                let id = try #require(HTTP.object(body)?["id"] as? String)
                stored.append((id, HTTP.sha256(photo.data)))
                continue
            }
            #expect(status == 507, "\(String(decoding: body, as: UTF8.self))")
            #expect(HTTP.errorCode(body) == "storage_failed")
            let message = HTTP.errorMessage(body) ?? ""
            #expect(message.contains(cause), "the message names the cause: \(message)")
            refused = photo
            break
        }
        let failed = try #require(refused, "the disk never filled")
        #expect(stored.count >= 2, "photos stored before the disk filled")
        print("disk-full figures: \(stored.count) uploads stored, then a 507 for \(failed.name) (\(failed.data.count) bytes)")

        // A replacement is refused the same way and leaves the old bytes in place.
        let replaced = stored[0]
        let (replaceStatus, replaceBody) = try await HTTP.send("PUT", "\(server.url)/api/attachments/\(replaced.id)/data?filename=\(failed.name)",
                                                               body: failed.data, contentType: "image/jpeg")
        #expect(replaceStatus == 507, "\(String(decoding: replaceBody, as: UTF8.self))")
        #expect(HTTP.errorCode(replaceBody) == "storage_failed")

        // Nothing half-written is left or referenced; everything stored reads back intact.
        #expect(Files.tree(server.store.appending(path: "tmp")).isEmpty, "no temporary file is left behind")
        try await expectIntact(stored, on: server)
        let listed = try await server.json("/api/notes/\(noteID)/attachments")
        #expect((listed["attachments"] as? [Any])?.count == stored.count, "\(listed)")

        let recovered = try await makeRoom()
        let (status, body) = try await HTTP.send("POST", "\(recovered.url)/api/notes/\(noteID)/attachments?filename=\(failed.name)",
                                                 body: failed.data, contentType: "image/jpeg")
        #expect(status == 201, "once space returns the upload succeeds: \(String(decoding: body, as: UTF8.self))")
        if status == 201, let id = HTTP.object(body)?["id"] as? String { stored.append((id, HTTP.sha256(failed.data))) }
        try await expectIntact(stored, on: recovered)
    }

    @Test("when the catalog itself cannot grow, writes answer 507 and succeed again once space returns",
          .enabled(if: SmallFilesystem.canMount, "needs a tmpfs mount (root)"))
    func fullCatalogIsRefusedAndRecovers() async throws {
        let disk = try SmallFilesystem(mebibytes: 8)
        let store = disk.url.appending(path: "store")
        try await Attach.initStore(store)
        let note = try await Attach.addNote("before", store: store)
        let photo = try Corpus.file("fifty/photo-10.jpg")
        let imported = try await Attach.run(["import", "--note", note, photo.path(percentEncoded: false)], store: store)
        #expect(imported.exitCode == 0, "\(imported.stderr)")
        let server = try await ServerProcess(store: store, port: try ServerProcess.freePort())
        do {
            disk.fill()
            #expect(disk.freeBytes == 0)
            var created: [String] = []
            var refusal: Data?
            for index in 0..<50 {
                let (status, body) = try await HTTP.send("POST", "\(server.url)/api/notes",
                                                         body: Data(#"{"title": "note \#(index)"}"#.utf8), contentType: "application/json")
                if status == 201, let id = HTTP.object(body)?["id"] as? String {
                    created.append(id)
                } else {
                    #expect(status == 507, "\(String(decoding: body, as: UTF8.self))")
                    refusal = body
                    break
                }
            }
            let body = try #require(refusal, "the catalog grew 50 times on a full disk")
            #expect(HTTP.errorCode(body) == "storage_failed")
            #expect(HTTP.errorMessage(body)?.contains("No space left on device") == true, "\(String(decoding: body, as: UTF8.self))")
            print("disk-full figures: catalog refused a new note after \(created.count) more fitted")

            // Reads go on; the photo stored before is intact.
            let attachments = try await server.json("/api/notes/\(note)/attachments")["attachments"] as? [[String: Any]]
            let id = try #require(attachments?.first?["id"] as? String)
            try await expectIntact([(id, HTTP.sha256(try Data(contentsOf: photo)))], on: server)

            try FileManager.default.removeItem(at: disk.url.appending(path: "filler"))
            let (status, answer) = try await HTTP.send("POST", "\(server.url)/api/notes",
                                                       body: Data(#"{"title": "after"}"#.utf8), contentType: "application/json")
            #expect(status == 201, "once space returns the note is created: \(String(decoding: answer, as: UTF8.self))")
            for id in created {
                #expect(try await server.get("/api/notes/\(id)").status == 200, "acknowledged note \(id) is kept")
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        try await expectVerifyClean(store)
    }

    @Test("attach import into a full disk names the file and the cause, exits 2 and changes nothing",
          .enabled(if: SmallFilesystem.canMount, "needs a tmpfs mount (root)"))
    func importIntoFullDiskFailsClearly() async throws {
        // 4 MiB: room for the store and a small photo, not for the 6.5 MB one.
        let disk = try SmallFilesystem(mebibytes: 4)
        let store = disk.url.appending(path: "store")
        try await Attach.initStore(store)
        let note = try await Attach.addNote("kept", store: store)
        let seeded = try await Attach.run(["import", "--note", note, try Corpus.file("good/Aqua.jpg").path(percentEncoded: false)], store: store)
        #expect(seeded.exitCode == 0, "\(seeded.stderr)")
        let before = try await Attach.snapshot(store)
        let big = try Corpus.file("fifty/photo-30.jpg").path(percentEncoded: false)

        let outcome = try await Attach.run(["import", "--note", note, big], store: store)
        #expect(outcome.exitCode == 2)
        let errorLines = outcome.stderr.split(separator: "\n")
        #expect(errorLines.count == 1, "\(outcome.stderr)")
        #expect(errorLines.first?.contains("photo-30.jpg") == true, "\(outcome.stderr)")
        #expect(errorLines.first?.contains("No space left on device") == true, "\(outcome.stderr)")
        // The advice comes from the cause (the system's ENOSPC), not from the message's words.
        #expect(errorLines.first?.contains("`attach gc`") == true, "\(outcome.stderr)")
        #expect(try await Attach.snapshot(store) == before)

        try disk.resize(mebibytes: 32)
        let retry = try await Attach.run(["import", "--note", note, big], store: store)
        #expect(retry.exitCode == 0, "the store is usable again: \(retry.stderr)")
        try await expectVerifyClean(store)
    }

    /// Every `(id, hash)` reads back through the server with exactly that hash.
    private func expectIntact(_ attachments: [(id: String, hash: String)], on server: ServerProcess) async throws {
        for (id, hash) in attachments {
            let (status, body) = try await server.get("/api/attachments/\(id)/original")
            #expect(status == 200, "original of \(id) answered \(status)")
            #expect(HTTP.sha256(body) == hash, "\(id) is byte-identical to what was acknowledged")
        }
    }

    /// `attach verify` exits 0 and finds no temporary file.
    private func expectVerifyClean(_ store: URL) async throws {
        let verify = try await Attach.run(["verify"], store: store)
        #expect(verify.exitCode == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(verify.stdout.contains(" 0 temporary files"), "\(verify.stdout)")
    }
}
