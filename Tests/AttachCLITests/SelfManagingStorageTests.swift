import Foundation
import Testing
import TestSupport

/// The storage budget and the scrub on real servers: a peer `attach serve` holds copies, the
/// server under test evicts, scrubs and repairs through it.
@Suite("Self-managing storage between real servers", .serialized, .timeLimit(.minutes(4)))
struct SelfManagingStorageTests {
    static func metric(_ name: String, on server: ServerProcess) async throws -> Double {
        let (_, body) = try await server.get("/metrics")
        let line = String(decoding: body, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }

    static func attachments(_ server: ServerProcess, note: String, state: String? = nil) async throws -> [[String: Any]] {
        let query = state.map { "?state=\($0)" } ?? ""
        return try await server.json("/api/notes/\(note)/attachments\(query)")["attachments"] as? [[String: Any]] ?? []
    }

    @Test("a server over its budget evicts the originals its peer holds, never the only copy, and reads evicted ones back from the peer byte-identical")
    func budgetEvictsWhatThePeerHolds() async throws {
        let directory = try TemporaryDirectory("budget")
        let (sp, sb) = (directory.appending("peer"), directory.appending("budgeted"))
        for store in [sp, sb] { try await Attach.initStore(store) }
        let names = ["good/Dune.jpg", "good/Aqua.jpg", "good/Blinds.jpg"]
        let photos = try names.map { try Corpus.file($0).path(percentEncoded: false) }
        _ = try await PeerSyncTests.importPhotos(Array(photos.prefix(2)), into: sp)
        let (note, imported) = try await PeerSyncTests.importPhotos(photos, into: sb)

        let peer = try await ServerProcess(store: sp, port: try ServerProcess.freePort())
        defer { peer.process.kill() }
        let server = try await ServerProcess(store: sb, port: try ServerProcess.freePort(),
                                             ["--peer", peer.url, "--max-local-bytes", "1M", "--budget-interval", "0.5"])
        defer { server.process.kill() }

        // Reads (the thumbnails the server makes at start) are spared for 10 s; then the budget acts.
        try await ServerProcess.eventually(60, "the two originals the peer holds to be evicted") {
            try await Self.attachments(server, note: note, state: "evicted").count == 2
        }
        let present = try await Self.attachments(server, note: note, state: "present")
        #expect(present.map { $0["filename"] as? String } == ["Blinds.jpg"], "the only copy stays, whatever the budget")
        #expect(try await Self.metric("attach_evicted_originals_total", on: server) >= 2)
        #expect(try await server.get("/api/notes/\(note)/attachments?state=lost").status == 400)

        for (attachment, path) in zip(imported, photos) {
            let (status, body) = try await server.get("/api/attachments/\(attachment["id"] as! String)/original")
            let expected = try Data(contentsOf: URL(filePath: path))
            #expect(status == 200 && body == expected, "\(path)")
        }
        await server.stop()
        await peer.stop()
        #expect(try await Attach.run(["verify"], store: sb).exitCode == 0)
        let stats = try await Attach.run(["stats", "--json"], store: sb)
        let budget = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])["budget"] as? [String: Any]
        #expect(budget?["maxLocalBytes"] as? Int == 1 << 20, "the budget is kept in the store")
        let listed = try await Attach.run(["list", "--state", "present"], store: sb)
        #expect(listed.exitCode == 0 && listed.stdout.contains("Blinds.jpg"))
    }

    @Test("attach fetch --all on a store with a budget ends within it: earlier originals are evicted as later ones arrive, and an evicted one is fetched again byte-identical")
    func fetchAllKeepsTheBudget() async throws {
        let directory = try TemporaryDirectory("fetch-budget")
        let (sp, sb) = (directory.appending("peer"), directory.appending("replica"))
        try await Attach.initStore(sp)
        let limit = 3 << 20
        #expect(try await Attach.run(["init", "--max-local-bytes", "3M"], store: sb).exitCode == 0)
        let names = ["good/Dune.jpg", "good/Blinds.jpg", "good/Elephants.jpg", "good/RainDrops.jpg", "good/TwoWings.jpg", "good/Storm.jpg"]
        let photos = try names.map { try Corpus.file($0).path(percentEncoded: false) }
        _ = try await PeerSyncTests.importPhotos(photos, into: sp)
        let peer = try await ServerProcess(store: sp, port: try ServerProcess.freePort())
        defer { peer.process.kill() }
        #expect(try await Attach.run(["sync", "pull", peer.url], store: sb).exitCode == 0)

        let fetched = try await Attach.run(["fetch", "--all", "--peer", peer.url], store: sb)
        #expect(fetched.exitCode == 0, "\(fetched.stderr)")
        #expect(fetched.stdout.contains("fetched 6 of 6 blobs") && fetched.stdout.contains("storage budget 3.1 MB"), "\(fetched.stdout)")
        let stats = try JSONSerialization.jsonObject(with: Data(try await Attach.run(["stats", "--json"], store: sb).stdout.utf8)) as? [String: Any]
        let here = try #require(stats?["blobBytes"] as? Int)
        let evicted = try #require(stats?["evictedBlobs"] as? Int)
        #expect(here <= limit, "\(here) bytes of originals here, over the \(limit)-byte budget")
        #expect(evicted >= 3, "\(evicted) evicted")

        // An evicted original comes back from the peer, checked against its hash.
        let listed = try await Attach.run(["list", "--state", "evicted", "--json"], store: sb)
        let evictedOnes = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let id = try #require(evictedOnes.first?["id"] as? String)
        #expect(try await Attach.run(["fetch", id, "--peer", peer.url], store: sb).exitCode == 0)
        let again = try await Attach.run(["list", "--state", "present", "--json"], store: sb)
        let presentOnes = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [[String: Any]])
        #expect(presentOnes.contains { $0["id"] as? String == id })
        await peer.stop()
        #expect(try await Attach.run(["verify"], store: sb).exitCode == 0)
    }

    @Test("import and restore keep a store within its budget: originals a peer holds are evicted, the imported only copies stay")
    func importAndRestoreKeepTheBudget() async throws {
        let directory = try TemporaryDirectory("import-budget")
        let (sp, sb) = (directory.appending("peer"), directory.appending("replica"))
        try await Attach.initStore(sp)
        #expect(try await Attach.run(["init", "--max-local-bytes", "3M"], store: sb).exitCode == 0)
        let held = try ["good/Dune.jpg", "good/Blinds.jpg"].map { try Corpus.file($0).path(percentEncoded: false) }
        _ = try await PeerSyncTests.importPhotos(held, into: sp)
        let peer = try await ServerProcess(store: sp, port: try ServerProcess.freePort())
        defer { peer.process.kill() }
        #expect(try await Attach.run(["sync", "pull", peer.url], store: sb).exitCode == 0)
        #expect(try await Attach.run(["fetch", "--all", "--peer", peer.url], store: sb).exitCode == 0)

        // 2.2 MB of new photos, the only copies: the 2.2 MB the peer holds make room.
        let mine = try ["good/RainDrops.jpg", "good/Elephants.jpg"].map { try Corpus.file($0).path(percentEncoded: false) }
        let imported = try await Attach.run(["import", "--new-note", "mine", "--no-thumbnails", "--peer", peer.url] + mine, store: sb)
        #expect(imported.exitCode == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("evicted"), "\(imported.stdout)")
        let stats = try JSONSerialization.jsonObject(with: Data(try await Attach.run(["stats", "--json"], store: sb).stdout.utf8)) as? [String: Any]
        #expect(try #require(stats?["blobBytes"] as? Int) <= 3 << 20)
        let present = try await Attach.run(["list", "--state", "present"], store: sb)
        #expect(present.stdout.contains("RainDrops.jpg") && present.stdout.contains("Elephants.jpg"), "the only copies stay")

        // A restore of a backup holding every original comes back within the budget too.
        #expect(try await Attach.run(["fetch", "--all", "--peer", peer.url], store: sb).exitCode == 0)
        let backup = directory.appending("backup").path(percentEncoded: false)
        #expect(try await Attach.run(["backup", backup], store: sb).exitCode == 0)
        let restoredStore = directory.appending("restored").path(percentEncoded: false)
        let restored = try await Attach.run(["restore", backup, "--store", restoredStore, "--peer", peer.url], store: nil)
        #expect(restored.exitCode == 0, "\(restored.stderr)")
        #expect(restored.stdout.contains("storage budget 3.1 MB"), "\(restored.stdout)")
        let after = try JSONSerialization.jsonObject(with: Data(try await Attach.run(["stats", "--json"], store: URL(filePath: restoredStore)).stdout.utf8)) as? [String: Any]
        #expect(try #require(after?["blobBytes"] as? Int) <= 3 << 20)
        await peer.stop()
        #expect(try await Attach.run(["verify"], store: URL(filePath: restoredStore)).exitCode == 0)
    }

    @Test("a store on S3 keeps its local copies within the budget and reads every original back from the bucket")
    func budgetTrimsLocalCopiesOfS3Originals() async throws {
        guard S3Blobs.isConfigured else { return }
        let directory = try TemporaryDirectory("budget-s3")
        let store = directory.appending("store")
        let blobs = S3Blobs.location("budget-\(UUID().uuidString.prefix(8))")
        #expect(try await Attach.run(["init", "--blobs", blobs, "--max-local-bytes", "0"], store: store).exitCode == 0)
        let photos = try ["good/Dune.jpg", "good/Aqua.jpg"].map { try Corpus.file($0).path(percentEncoded: false) }
        let outcome = try await Attach.run(["import", "--json", "--no-thumbnails", "--new-note", "s3", "--blobs", blobs] + photos, store: store)
        #expect(outcome.exitCode == 0)
        let imported = Attach.importedLines(outcome.stdout).map(\.attachment)
        let server = try await ServerProcess(store: store, port: try ServerProcess.freePort(), ["--blobs", blobs, "--budget-interval", "0.5"])
        defer { server.process.kill() }
        try await ServerProcess.eventually(60, "the local copies to be trimmed") {
            Files.tree(store.appending(path: "cache/blobs")).isEmpty
        }
        for (attachment, path) in zip(imported, photos) {
            let (status, body) = try await server.get("/api/attachments/\(attachment["id"] as! String)/original")
            let expected = try Data(contentsOf: URL(filePath: path))
            #expect(status == 200 && body == expected, "\(path) from the bucket")
        }
        await server.stop()
        #expect(try await Attach.run(["verify", "--blobs", blobs], store: store).exitCode == 0)
    }

    @Test("a flipped byte is found by the scrub, answered as an error (never the damaged bytes), repaired from the peer, and verify is clean")
    func scrubQuarantinesAndRepairsFromThePeer() async throws {
        let directory = try TemporaryDirectory("scrub")
        let (sp, sb) = (directory.appending("peer"), directory.appending("scrubbed"))
        for store in [sp, sb] { try await Attach.initStore(store) }
        let photos = try ["good/Dune.jpg", "good/Aqua.jpg"].map { try Corpus.file($0).path(percentEncoded: false) }
        _ = try await PeerSyncTests.importPhotos([photos[0]], into: sp)
        let (note, imported) = try await PeerSyncTests.importPhotos(photos, into: sb)
        let id = imported[0]["id"] as! String
        let hash = imported[0]["blobHash"] as! String
        let original = try Data(contentsOf: URL(filePath: photos[0]))

        let peerPort = try ServerProcess.freePort()
        var peer = try await ServerProcess(store: sp, port: peerPort)
        let server = try await ServerProcess(store: sb, port: try ServerProcess.freePort(),
                                             ["--peer", peer.url, "--scrub-rate", "200M", "--sync-interval", "0.5"])
        defer { server.process.kill() }
        try await ServerProcess.eventually(30, "the first scrub pass") {
            try await Self.metric("attach_scrub_blobs_total", on: server) >= 2
        }

        // The peer is away when the damage is found: the original answers an error, not wrong bytes.
        await peer.stop()
        try Files.flipByte(in: Files.blobPath(in: sb, hash: hash))
        try await ServerProcess.eventually(40, "the scrub to find the damage") {
            try await Self.metric("attach_scrub_damaged_total", on: server) >= 1
        }
        let (status, body) = try await server.get("/api/attachments/\(id)/original")
        #expect(status >= 400 && body != original && body.count < 4096, "answered \(status) with \(body.count) bytes")
        #expect(try await server.json("/api/attachments/\(id)")["state"] as? String == "damaged")
        #expect(try await Self.attachments(server, note: note, state: "damaged").count == 1)

        // Back, the peer's copy repairs it.
        peer = try await ServerProcess(store: sp, port: peerPort)
        defer { peer.process.kill() }
        try await ServerProcess.eventually(40, "the repair from the peer") {
            try await Self.metric("attach_scrub_repaired_total", on: server) >= 1
        }
        let repaired = try await server.get("/api/attachments/\(id)/original")
        #expect(repaired.status == 200 && repaired.body == original)
        await server.stop()
        #expect(try await Attach.run(["verify"], store: sb).exitCode == 0)
        let stats = try JSONSerialization.jsonObject(with: Data(try await Attach.run(["stats", "--json"], store: sb).stdout.utf8)) as? [String: Any]
        #expect(stats?["scrubDamageFound"] as? Int == 1 && stats?["scrubRepaired"] as? Int == 1)

        // verify --repair does the same at once.
        try Files.flipByte(in: Files.blobPath(in: sb, hash: hash))
        #expect(try await Attach.run(["verify"], store: sb).exitCode == 2)
        let repair = try await Attach.run(["verify", "--repair", "--peer", peer.url], store: sb)
        #expect(repair.exitCode == 0, "\(repair.stdout)\(repair.stderr)")
        #expect(repair.stdout.contains("REPAIRED blob \(hash)"))
        #expect(try await Attach.run(["verify"], store: sb).exitCode == 0)
    }
}
