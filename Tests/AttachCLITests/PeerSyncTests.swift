import AttachmentStore
import Foundation
import Testing
import TestSupport

@Suite("Peer sync between real servers", .serialized, .timeLimit(.minutes(4)))
struct PeerSyncTests {
    static func importPhotos(_ files: [String], into store: URL) async throws -> (note: String, attachments: [[String: Any]]) {
        let outcome = try await Attach.run(["import", "--json", "--no-thumbnails", "--new-note", "trip"] + files, store: store)
        guard outcome.exitCode == 0 else { throw Attach.Failed(outcome: outcome) }
        let lines = Attach.importedLines(outcome.stdout)
        return (lines[0].attachment["noteID"] as! String, lines.map(\.attachment))
    }

    static func attachments(_ server: ServerProcess, note: String) async throws -> [[String: Any]] {
        let (status, body) = try await server.get("/api/notes/\(note)/attachments")
        guard status == 200, let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else { return [] }
        return object["attachments"] as? [[String: Any]] ?? []
    }

    @Test("A ↔ B ↔ C: records reach C with no blob bytes moved; C's thumbnail fetches through B; edits converge; deletes spread to every trash")
    func threeServersInALine() async throws {
        let directory = try TemporaryDirectory("peers")
        let (pa, pb, pc) = (try ServerProcess.freePort(), try ServerProcess.freePort(), try ServerProcess.freePort())
        let (sa, sb, sc) = (directory.appending("a"), directory.appending("b"), directory.appending("c"))
        for store in [sa, sb, sc] { try await Attach.initStore(store) }
        let photos = try ["good/Dune.jpg", "special/orientation-6.jpg"].map { try Corpus.file($0).path(percentEncoded: false) }
        let (note, imported) = try await Self.importPhotos(photos, into: sa)

        let fast = ["--sync-interval", "0.2"]
        let a = try await ServerProcess(store: sa, port: pa, fast + ["--peer", "http://127.0.0.1:\(pb)"])
        let b = try await ServerProcess(store: sb, port: pb, fast + ["--peer", "http://127.0.0.1:\(pa)", "--peer", "http://127.0.0.1:\(pc)"])
        let c = try await ServerProcess(store: sc, port: pc, fast + ["--peer", "http://127.0.0.1:\(pb)"])
        defer { for server in [a, b, c] { server.process.kill() } }

        try await ServerProcess.eventually(30, "C to learn of A's attachments") { try await Self.attachments(c, note: note).count == 2 }
        let onC = try await Self.attachments(c, note: note)
        #expect(onC.allSatisfy { $0["available"] as? Bool == false })
        for server in [a, b] { #expect(try await server.json("/sync/status")["blobBytesServed"] as? Int == 0) }

        let photo = try #require(imported.first { ($0["filename"] as? String) == "orientation-6.jpg" })
        let id = photo["id"] as! String
        let (status, thumbnail) = try await c.get("/api/attachments/\(id)/thumbnail?size=200")
        #expect(status == 200)
        #expect(thumbnail.count > 1000)
        let byteCount = photo["byteCount"] as! Int
        #expect(try await a.json("/sync/status")["blobBytesServed"] as? Int == byteCount, "A served the one original once, to B")
        #expect(try await b.json("/sync/status")["blobBytesServed"] as? Int == byteCount, "B relayed it to C")
        let (originalStatus, original) = try await c.get("/api/attachments/\(id)/original")
        #expect(originalStatus == 200)
        #expect(original == (try Data(contentsOf: URL(filePath: photos[1]))))

        // Concurrent edits on the two ends converge to one value everywhere.
        #expect(try await a.send("PATCH", "/api/notes/\(note)", json: ["body": "edited on A"]) == 200)
        #expect(try await c.send("PATCH", "/api/notes/\(note)", json: ["body": "edited on C"]) == 200)
        try await ServerProcess.eventually(30, "the edits to converge") {
            let bodies = try await [a, b, c].asyncMap { try await $0.json("/api/notes/\(note)")["body"] as? String }
            return Set(bodies).count == 1
        }

        // A deletion on C reaches A through B, attachments included: into the trash on every peer.
        #expect([200, 204].contains(try await c.send("DELETE", "/api/notes/\(note)", json: [:])))
        try await ServerProcess.eventually(30, "the deletion to reach A") { try await a.get("/api/notes/\(note)").status == 404 }
        #expect(try await b.get("/api/notes/\(note)").status == 404)
        #expect(try await a.get("/api/notes/\(note)/attachments").status == 404)
        let trash = try await a.json("/api/trash")["items"] as? [[String: Any]]
        #expect(trash?.compactMap { $0["id"] as? String } == [note], "in A's trash, restorable there")
    }

    @Test("--fetch thumbnails takes the peer's kilobyte thumbnails, --fetch originals every original")
    func fetchModes() async throws {
        let directory = try TemporaryDirectory("modes")
        let (sa, sb, sc) = (directory.appending("a"), directory.appending("b"), directory.appending("c"))
        for store in [sa, sb, sc] { try await Attach.initStore(store) }
        let photos = try ["good/Dune.jpg", "good/Aqua.jpg"].map { try Corpus.file($0).path(percentEncoded: false) }
        let (note, imported) = try await Self.importPhotos(photos, into: sa)
        let a = try await ServerProcess(store: sa, port: try ServerProcess.freePort())
        defer { a.process.kill() }
        let lookers = try await ServerProcess(store: sb, port: try ServerProcess.freePort(),
                                              ["--peer", a.url, "--sync-interval", "0.2", "--fetch", "thumbnails"])
        defer { lookers.process.kill() }
        try await ServerProcess.eventually(30, "B to hold A's thumbnails") {
            let usage = try await Attach.run(["cache", "stats", "--json"], store: sb).stdout
            return usage.contains("\"files\":2")
        }
        let id = imported[0]["id"] as! String
        let (status, _) = try await lookers.get("/api/attachments/\(id)/thumbnail?size=200")
        #expect(status == 200)
        #expect(try await a.json("/sync/status")["blobBytesServed"] as? Int == 0, "thumbnails only, no original moved")
        #expect(try await Self.attachments(lookers, note: note).allSatisfy { $0["available"] as? Bool == false })

        let keepers = try await ServerProcess(store: sc, port: try ServerProcess.freePort(),
                                              ["--peer", a.url, "--sync-interval", "0.2", "--fetch", "originals"])
        defer { keepers.process.kill() }
        try await ServerProcess.eventually(30, "C to hold every original") {
            let here = try await Self.attachments(keepers, note: note)
            return here.count == 2 && here.allSatisfy { $0["available"] as? Bool == true }
        }
        let total = imported.reduce(0) { $0 + ($1["byteCount"] as! Int) }
        #expect(try await a.json("/sync/status")["blobBytesServed"] as? Int == total)
    }

    @Test("a 16 MB transfer cut midway resumes when the peer returns and moves only the remainder")
    func cutTransferResumes() async throws {
        let directory = try TemporaryDirectory("resume")
        let (sa, sb) = (directory.appending("a"), directory.appending("b"))
        try await Attach.initStore(sa)
        try await Attach.initStore(sb)
        let big = try Corpus.file("special/large-16mb.jpg")
        let (_, imported) = try await Self.importPhotos([big.path(percentEncoded: false)], into: sa)
        let hash = imported[0]["blobHash"] as! String
        let size = imported[0]["byteCount"] as! Int
        let port = try ServerProcess.freePort()
        var a = try await ServerProcess(store: sa, port: port, ["--peer-bandwidth", "4"])
        #expect(try await Attach.run(["sync", "pull", a.url], store: sb).exitCode == 0)

        let partial = sb.appending(path: "tmp/fetch-\(hash).part").path(percentEncoded: false)
        let fetch = try Attach.start(["fetch", "--all", "--peer", a.url], store: sb)
        try await ServerProcess.eventually(30, "the transfer to be under way") {
            ((try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int) ?? 0) > 3 << 20
        }
        await a.stop(SIGKILL)
        let cut = await fetch.wait()
        #expect(cut.exitCode == 2, "\(cut.stderr)")
        let received = try #require(try FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int)
        #expect(received > 0 && received < size)
        #expect(try await AttachmentStore.open(at: sb).allAttachments().first?.availability == .remote)

        a = try await ServerProcess(store: sa, port: port)
        defer { a.process.kill() }
        let resumed = try await Attach.run(["fetch", "--all", "--peer", a.url], store: sb)
        #expect(resumed.exitCode == 0, "\(resumed.stderr)")
        #expect(try await a.json("/sync/status")["blobBytesServed"] as? Int == size - received, "only the remainder moved")
        let store = try await AttachmentStore.open(at: sb)
        #expect(try await store.allAttachments().first?.availability == .local)
        #expect(try await store.verify().isClean)
        #expect(!FileManager.default.fileExists(atPath: partial))
    }

    @Test("a peer serving wrong bytes is named and rejected; the blob stays remote and nothing corrupt is stored")
    func tamperedPeerIsRejected() async throws {
        let directory = try TemporaryDirectory("tamper")
        let (sa, sb) = (directory.appending("a"), directory.appending("b"))
        try await Attach.initStore(sa)
        try await Attach.initStore(sb)
        let (_, imported) = try await Self.importPhotos([Corpus.file("good/Dune.jpg").path(percentEncoded: false)], into: sa)
        let hash = imported[0]["blobHash"] as! String
        let blob = sa.appending(path: "blobs/sha256/\(hash.prefix(2))/\(hash.dropFirst(2).prefix(2))/\(hash)").path(percentEncoded: false)
        chmod(blob, 0o644)
        let handle = try #require(FileHandle(forUpdatingAtPath: blob))
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: [0x00, 0x01, 0x02])
        try handle.close()

        let a = try await ServerProcess(store: sa, port: try ServerProcess.freePort())
        defer { a.process.kill() }
        #expect(try await Attach.run(["sync", "pull", a.url], store: sb).exitCode == 0)
        let fetch = try await Attach.run(["fetch", "--all", "--peer", a.url], store: sb)
        #expect(fetch.exitCode == 2)
        #expect(fetch.stderr.contains("peer \(a.url) served wrong bytes"), "\(fetch.stderr)")
        let store = try await AttachmentStore.open(at: sb)
        #expect(try await store.allAttachments().first?.availability == .remote)
        #expect(try await store.verify().isClean)
        #expect(Files.tree(sb.appending(path: "blobs")).isEmpty)
        #expect(Files.tree(sb.appending(path: "tmp")).isEmpty)
    }
}
