import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TestSupport

/// `attach serve` killed with SIGKILL in the middle of uploads, replacements, deletions and
/// concurrent `attach gc --grace 0` runs, then restarted on the same store.
@Suite("Server crash consistency")
struct ServerCrashTests {
    /// Rounds of load, each ended by a SIGKILL at a random moment: `$ATTACH_CRASH_ROUNDS`,
    /// default 12 (`make soak` runs 50).
    static let rounds = ProcessInfo.processInfo.environment["ATTACH_CRASH_ROUNDS"].flatMap { Int($0) }.map { max(1, $0) } ?? 12
    /// Clients writing at once, each over the attachments it made itself.
    static let clients = 2

    @Test("SIGKILL of a busy server loses no acknowledged upload, replacement or deletion",
          .timeLimit(.minutes(Self.rounds > 12 ? 15 : 3)))
    func killedServerLosesNothingAcknowledged() async throws {
        let directory = try TemporaryDirectory("server-crash")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let note = try await Attach.addNote("crash target", store: store)
        let photos = try Self.photos()

        var ledgers = Array(repeating: Ledger(), count: Self.clients)
        var totals = Totals()
        var server = try await ServerProcess(store: store, port: try ServerProcess.freePort())
        for round in 0..<Self.rounds {
            let gc = Task { try await Self.collectGarbageUntilCancelled(store) }
            let running = server
            let work = Task { [ledgers] in
                try await withThrowingTaskGroup(of: (Int, Ledger).self) { group in
                    for (client, ledger) in ledgers.enumerated() {
                        group.addTask {
                            var ledger = ledger
                            await ledger.work(on: running.url, note: note, photos: photos)
                            return (client, ledger)
                        }
                    }
                    var updated = ledgers
                    for try await (client, ledger) in group { updated[client] = ledger }
                    return updated
                }
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 150...1_500)))
            await server.stop(SIGKILL)
            ledgers = try await work.value
            gc.cancel()
            let gcRuns = try await gc.value
            #expect(gcRuns.failures.isEmpty, "round \(round): \(gcRuns.failures)")
            totals.gcRuns += gcRuns.count

            server = try await ServerProcess(store: store, port: try ServerProcess.freePort())
            let verify = try await Attach.run(["verify"], store: store)
            #expect(verify.exitCode == 0, "round \(round): \(verify.stdout)\(verify.stderr)")
            for index in ledgers.indices {
                try await ledgers[index].check(against: server, round: round)
            }
        }
        await server.stop()

        for ledger in ledgers { totals.add(ledger) }
        let gc = try await Attach.run(["gc", "--grace", "0"], store: store)
        #expect(gc.exitCode == 0, "\(gc.stderr)")
        let verify = try await Attach.run(["verify", "--json"], store: store)
        #expect(verify.exitCode == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(totals.acknowledgedUploads > 0)
        #expect(totals.acknowledgedReplacements > 0)
        #expect(totals.acknowledgedDeletions > 0)
        print("soak figures: test=crash rounds=\(Self.rounds) \(totals)")
    }

    // MARK: - The client's ledger

    /// What one client was told, and what it may therefore find after a crash.
    struct Ledger: Sendable {
        /// Attachment id → the hashes it may hold (two while a replacement's answer was lost).
        var live: [String: Set<String>] = [:]
        /// Attachments whose deletion was sent but not answered.
        var mayBeGone: Set<String> = []
        /// Attachments whose deletion was acknowledged.
        var deleted: Set<String> = []
        var acknowledgedUploads = 0
        var acknowledgedReplacements = 0
        var acknowledgedDeletions = 0
        var unanswered = 0
        var requests = 0
        var checkedOriginals = 0
        var checkedBytes = 0

        /// Uploads, replaces and deletes until a request goes unanswered (the server died).
        mutating func work(on server: String, note: String, photos: [Photo]) async {
            while true {
                let roll = Int.random(in: 0..<4)
                let candidates = live.keys.filter { !mayBeGone.contains($0) }
                if roll < 2 || candidates.isEmpty {
                    guard await upload(Photo.random(from: photos), server: server, note: note) else { return }
                } else if roll == 2 {
                    guard await replace(candidates.randomElement()!, with: Photo.random(from: photos), server: server) else { return }
                } else {
                    guard await delete(candidates.randomElement()!, server: server) else { return }
                }
            }
        }

        private mutating func upload(_ body: (data: Data, hash: String, name: String), server: String, note: String) async -> Bool {
            requests += 1
            let url = "\(server)/api/notes/\(note)/attachments?filename=\(body.name)"
            guard let result = try? await HTTP.send("POST", url, body: body.data, contentType: HTTP.someContentType()) else {
                unanswered += 1
                return false
            }
            let (status, answer) = result
            #expect(status == 201, "upload answered \(status): \(String(decoding: answer, as: UTF8.self))")
            guard status == 201, let resource = HTTP.object(answer), let id = resource["id"] as? String else { return true }
            #expect(resource["hash"] as? String == "sha256:" + body.hash)
            live[id] = [body.hash]
            acknowledgedUploads += 1
            return true
        }

        private mutating func replace(_ id: String, with body: (data: Data, hash: String, name: String), server: String) async -> Bool {
            requests += 1
            let url = "\(server)/api/attachments/\(id)/data?filename=\(body.name)"
            guard let result = try? await HTTP.send("PUT", url, body: body.data, contentType: HTTP.someContentType()) else {
                live[id, default: []].insert(body.hash)
                unanswered += 1
                return false
            }
            let (status, answer) = result
            #expect(status == 200, "replace answered \(status): \(String(decoding: answer, as: UTF8.self))")
            guard status == 200 else { return true }
            #expect(HTTP.object(answer)?["hash"] as? String == "sha256:" + body.hash)
            live[id] = [body.hash]
            acknowledgedReplacements += 1
            return true
        }

        private mutating func delete(_ id: String, server: String) async -> Bool {
            requests += 1
            guard let result = try? await HTTP.send("DELETE", "\(server)/api/attachments/\(id)?purge=true", body: nil, contentType: nil) else {
                mayBeGone.insert(id)
                unanswered += 1
                return false
            }
            let (status, answer) = result
            #expect(status == 204, "delete answered \(status): \(String(decoding: answer, as: UTF8.self))")
            guard status == 204 else { return true }
            live[id] = nil
            deleted.insert(id)
            acknowledgedDeletions += 1
            return true
        }

        /// Every live attachment's original is byte-identical to what was acknowledged (or to
        /// the replacement whose answer was lost); every deleted one is gone. Settles the
        /// ambiguities left by the crash to what the server now holds.
        mutating func check(against server: ServerProcess, round: Int) async throws {
            for (id, hashes) in live {
                let (status, body) = try await server.get("/api/attachments/\(id)/original")
                if status == 404, mayBeGone.contains(id) {
                    live[id] = nil
                    deleted.insert(id)
                    continue
                }
                #expect(status == 200, "round \(round): original of \(id) answered \(status)")
                let hash = HTTP.sha256(body)
                #expect(hashes.contains(hash), "round \(round): \(id) holds \(hash), acknowledged \(hashes)")
                live[id] = [hash]
                checkedOriginals += 1
                checkedBytes += body.count
            }
            mayBeGone = []
            for id in deleted {
                let (status, _) = try await server.get("/api/attachments/\(id)")
                #expect(status == 404, "round \(round): deleted \(id) answered \(status)")
            }
        }
    }

    /// Sums over every client.
    struct Totals: CustomStringConvertible {
        var requests = 0, acknowledgedUploads = 0, acknowledgedReplacements = 0, acknowledgedDeletions = 0
        var unanswered = 0, checkedOriginals = 0, checkedBytes = 0, gcRuns = 0

        mutating func add(_ ledger: Ledger) {
            requests += ledger.requests
            acknowledgedUploads += ledger.acknowledgedUploads
            acknowledgedReplacements += ledger.acknowledgedReplacements
            acknowledgedDeletions += ledger.acknowledgedDeletions
            unanswered += ledger.unanswered
            checkedOriginals += ledger.checkedOriginals
            checkedBytes += ledger.checkedBytes
        }

        var description: String {
            "requests=\(requests) uploads=\(acknowledgedUploads) replacements=\(acknowledgedReplacements) "
                + "deletions=\(acknowledgedDeletions) unanswered=\(unanswered) gc-runs=\(gcRuns) "
                + "originals-compared=\(checkedOriginals) bytes-compared=\(checkedBytes)"
        }
    }

    // MARK: - Inputs and helpers

    /// A real photo in memory.
    struct Photo: Sendable {
        let name: String
        let data: Data

        /// A photo's bytes, half the time with random bytes after the JPEG's end so that the
        /// upload makes a new blob rather than a duplicate.
        static func random(from photos: [Photo]) -> (data: Data, hash: String, name: String) {
            let photo = photos.randomElement()!
            var data = photo.data
            if Bool.random() {
                data.append(contentsOf: (0..<32).map { _ in UInt8.random(in: 0...255) })
            }
            return (data, HTTP.sha256(data), photo.name)
        }
    }

    /// The corpus's JPEGs of up to 6 MB: `good/` and the first few of `fifty/`.
    static func photos() throws -> [Photo] {
        let files = try Corpus.files(in: "good") + Corpus.files(in: "fifty").prefix(4)
        return try files.filter { $0.pathExtension == "jpg" }.compactMap { url in
            let data = try Data(contentsOf: url)
            return data.count <= 6 << 20 ? Photo(name: url.lastPathComponent, data: data) : nil
        }
    }

    /// Runs `attach gc --grace 0` back to back until cancelled; returns the runs and the failures.
    static func collectGarbageUntilCancelled(_ store: URL) async throws -> (count: Int, failures: [String]) {
        var count = 0
        var failures: [String] = []
        while !Task.isCancelled {
            let outcome = try await Attach.run(["gc", "--grace", "0"], store: store)
            count += 1
            if outcome.exitCode != 0 { failures.append(outcome.stderr) }
        }
        return (count, failures)
    }
}
