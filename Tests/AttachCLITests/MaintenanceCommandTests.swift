import AttachmentStore
import Foundation
import Testing
import TestSupport

@Suite("verify, gc and stats from the command line", .timeLimit(.minutes(3)))
struct MaintenanceCommandTests {
    @Test("a blob flipped by one byte is reported by verify with the attachments it breaks, exit 2")
    func verifyNamesDamage() async throws {
        let directory = try TemporaryDirectory("verify")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let imported = try await Attach.run(["import", "--json", "--new-note", "damaged",
                                             Corpus.file("good/Garden.jpg").path(percentEncoded: false),
                                             Corpus.file("good/Dune.jpg").path(percentEncoded: false)], store: store)
        let lines = Attach.importedLines(imported.stdout)
        let victim = try #require(lines.first { $0.file.hasSuffix("Garden.jpg") }?.attachment)
        let hash = try #require(victim["blobHash"] as? String)
        let blob = store.appending(path: "blobs/sha256/\(hash.prefix(2))/\(hash.dropFirst(2).prefix(2))/\(hash)").path(percentEncoded: false)

        chmod(blob, 0o644)
        let handle = try #require(FileHandle(forUpdatingAtPath: blob))
        try handle.seek(toOffset: 5000)
        let original = try #require(try handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: 5000)
        try handle.write(contentsOf: [original ^ 0x01])
        try handle.close()

        let verify = try await Attach.run(["verify"], store: store)
        #expect(verify.exitCode == 2)
        #expect(verify.stdout.contains("DAMAGED blob \(hash)"))
        #expect(verify.stdout.contains(victim["id"] as! String))
        #expect(verify.stdout.contains("Garden.jpg"))
        #expect(!verify.stdout.contains("Dune.jpg"))

        let export = try await Attach.run(["export", victim["id"] as! String, "-o", directory.appending("out.jpg").path(percentEncoded: false)], store: store)
        #expect(export.exitCode == 2, "a damaged blob is not exported")
        #expect(!FileManager.default.fileExists(atPath: directory.appending("out.jpg").path(percentEncoded: false)))
    }

    @Test("50 imports of one photo into 50 notes keep one blob, and stats shows the savings")
    func statsShowDeduplication() async throws {
        let directory = try TemporaryDirectory("dedup")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let seed = try Corpus.file("special/seed-3.7mb.jpg")
        let size = try FileManager.default.attributesOfItem(atPath: seed.path(percentEncoded: false))[.size] as! Int
        for index in 0..<50 {
            let outcome = try await Attach.run(["import", "--new-note", "note \(index)", seed.path(percentEncoded: false)], store: store)
            #expect(outcome.exitCode == 0)
        }
        let stats = try await Attach.run(["stats", "--json"], store: store)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        #expect(json["notes"] as? Int == 50)
        #expect(json["attachments"] as? Int == 50)
        #expect(json["blobs"] as? Int == 1)
        #expect(json["bytesSavedByDeduplication"] as? Int == 49 * size)
        #expect((json["bytesOnDisk"] as? Int ?? .max) < size * 105 / 100 + (512 << 10))

        let human = try await Attach.run(["stats"], store: store)
        #expect(human.stdout.contains("saved by dedup"))
    }

    @Test("note rm moves a note to the trash, which gc keeps; trash list and restore bring it back; note rm --purge, then gc --grace 0, removes its blobs")
    func noteRemovalTrashThenGC() async throws {
        let directory = try TemporaryDirectory("gc")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let note = try await Attach.addNote("temporary", store: store)
        _ = try await Attach.run(["import", "--note", note, Corpus.file("good").path(percentEncoded: false)], store: store)
        let removal = try await Attach.run(["note", "rm", note], store: store)
        #expect(removal.exitCode == 0 && removal.stdout.contains("to the trash"), "\(removal.stdout)")
        #expect(try await Attach.run(["list", "--json"], store: store).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        let kept = try await Attach.run(["gc", "--grace", "0", "--json"], store: store)
        let keptReport = try #require(try JSONSerialization.jsonObject(with: Data(kept.stdout.utf8)) as? [String: Any])
        #expect(keptReport["blobs"] as? Int == 0, "the originals of a note in the trash stay")
        #expect(Files.tree(store.appending(path: "blobs")).count == 23)

        let listed = try await Attach.run(["trash", "list"], store: store)
        #expect(listed.stdout.contains(String(note.prefix(8))) && listed.stdout.contains("temporary") && listed.stdout.contains("note"))
        let restored = try await Attach.run(["trash", "restore", String(note.prefix(8))], store: store)
        #expect(restored.exitCode == 0 && restored.stdout.contains("restored note \(note)"), "\(restored.stdout)")
        #expect(try await Attach.run(["trash", "list"], store: store).stdout.contains("the trash is empty"))
        let missing = try await Attach.run(["trash", "restore", String(note.prefix(8))], store: store)
        #expect(missing.exitCode == 1 && missing.stderr.contains("attach trash list"), "\(missing.stderr)")

        #expect(try await Attach.run(["note", "rm", "--purge", note], store: store).exitCode == 0)
        let dryRun = try await Attach.run(["gc", "--grace", "0", "--dry-run", "--json"], store: store)
        let planned = try #require(try JSONSerialization.jsonObject(with: Data(dryRun.stdout.utf8)) as? [String: Any])
        #expect(planned["blobs"] as? Int == 23)
        #expect(try await Attach.run(["gc", "--grace", "0"], store: store).exitCode == 0)
        #expect(Files.tree(store.appending(path: "blobs")).isEmpty)
        #expect(try await Attach.run(["verify"], store: store).exitCode == 0)
    }

    @Test("gc --trash-days 0 purges what is in the trash before it looks for garbage; trash empty purges everything")
    func gcPurgesTheTrashAfterItsRetention() async throws {
        let directory = try TemporaryDirectory("gc-trash")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let note = try await Attach.addNote("old", store: store)
        _ = try await Attach.run(["import", "--note", note, Corpus.file("good/Garden.jpg").path(percentEncoded: false)], store: store)
        _ = try await Attach.run(["note", "rm", note], store: store)
        let untouched = try await Attach.run(["gc", "--grace", "0"], store: store)
        #expect(!untouched.stdout.contains("purged"), "within 30 days nothing is purged: \(untouched.stdout)")
        let purged = try await Attach.run(["gc", "--grace", "0", "--trash-days", "0"], store: store)
        #expect(purged.stdout.contains("purged 1 notes and 0 attachments from the trash"), "\(purged.stdout)")
        #expect(Files.tree(store.appending(path: "blobs")).isEmpty)
        #expect(try await Attach.run(["trash", "list", "--json"], store: store).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")

        let other = try await Attach.addNote("another", store: store)
        _ = try await Attach.run(["note", "rm", other], store: store)
        let emptied = try await Attach.run(["trash", "empty"], store: store)
        #expect(emptied.stdout.contains("purged 1 note and 0 attachments from the trash"), "\(emptied.stdout)")
        #expect(try await Attach.run(["gc", "--trash-days", "-1"], store: store).exitCode != 0)
    }

    @Test("attach serve --trash-days 0 purges the trash when it starts (and every hour), and counts it in /metrics")
    func servePurgesTheTrash() async throws {
        let directory = try TemporaryDirectory("serve-trash")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let note = try await Attach.addNote("going", store: store)
        _ = try await Attach.run(["note", "rm", note], store: store)
        let server = try await ServerProcess(store: store, port: try ServerProcess.freePort(), ["--trash-days", "0"])
        defer { server.process.kill() }
        try await ServerProcess.eventually(20, "the trash to be purged") {
            (try await server.json("/api/trash")["items"] as? [Any])?.isEmpty == true
        }
        let metrics = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
        #expect(metrics.contains("attach_trash_purged_total 1"), "\(metrics.split(separator: "\n").filter { $0.contains("trash") })")
        #expect(try await server.get("/api/notes/\(note)").status == 404)
    }

    @Test("stats splits disk use into originals, catalog and caches, and they add up to no more than the folder")
    func statsSplitsDiskUse() async throws {
        let directory = try TemporaryDirectory("stats-split")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let photos = try Corpus.files(in: "fifty").prefix(3)
        let bytes = try photos.reduce(Int64(0)) { $0 + (try Files.size($1)) }
        #expect(try await Attach.run(["import", "--new-note", "Split", "--no-thumbnails"] + photos.map { $0.path(percentEncoded: false) },
                                     store: store).exitCode == 0)
        #expect(try await Attach.run(["thumbs"], store: store).exitCode == 0)
        let outcome = try await Attach.run(["stats", "--json"], store: store)
        let stats = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        let value = { (key: String) in (stats[key] as? NSNumber)?.int64Value ?? -1 }
        #expect(value("originalsOnDisk") >= bytes)
        #expect(value("catalogOnDisk") > 0)
        #expect(value("thumbnailCacheFiles") == 3)
        #expect(value("thumbnailCacheOnDisk") > 0)
        #expect(value("originalCopiesOnDisk") == 0)
        #expect(value("originalsOnDisk") + value("catalogOnDisk") + value("thumbnailCacheOnDisk") <= value("bytesOnDisk"))
        let human = try await Attach.run(["stats"], store: store)
        #expect(human.stdout.contains("thumbnails") && human.stdout.contains("in 3 files (cache)"), "\(human.stdout)")
    }
}
