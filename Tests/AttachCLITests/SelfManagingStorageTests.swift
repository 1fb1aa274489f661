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
