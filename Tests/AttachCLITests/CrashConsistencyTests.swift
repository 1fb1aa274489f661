import AttachmentStore
import Foundation
import Testing
import TestSupport

@Suite("Crash consistency and concurrent writers", .timeLimit(.minutes(5)))
struct CrashConsistencyTests {
    @Test("SIGKILL at random moments of an import loses nothing acknowledged and leaves gc-able garbage only")
    func killedImportsLoseNothingAcknowledged() async throws {
        let directory = try TemporaryDirectory("crash")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let photos = try Corpus.files(in: "fifty").map { $0.path(percentEncoded: false) }
        let hashes = try Dictionary(uniqueKeysWithValues: photos.map { ($0, try Files.sha256(URL(filePath: $0))) })

        var acknowledged: [(id: String, hash: String)] = []
        var killedMidway = 0
        var rounds: [String] = []
        var generator = SystemRandomNumberGenerator()
        for round in 0..<24 {
            // Each round imports a different rotation of the photos, three times over (150
            // attachments), so rounds also add new blobs, and a kill always finds work left:
            // later rounds find every blob already stored and only hash, and with JPEG headers
            // read without libvips one pass of the fifty took only about 130 ms, less than a
            // busy test machine may take to notice an acknowledgement.
            let offset = (round * 7) % photos.count
            let files = Array(repeating: Array(photos[offset...] + photos[..<offset]), count: 3).flatMap { $0 }
            let child = try Attach.start(["import", "--json", "--new-note", "round \(round)"] + files, store: store)
            // Each round is killed after a random number of acknowledgements (none, in some
            // rounds), a random instant later. The import acknowledges a batch of 16 at once, so
            // waiting for 1...16 lines waits for the first batch and leaves eight more to come.
            let acknowledgementsBeforeKill = round.isMultiple(of: 4) ? 0 : Int.random(in: 1...16, using: &generator)
            let deadline = ContinuousClock.now + .seconds(60)
            while Attach.importedLines(child.stdoutSoFar).count < acknowledgementsBeforeKill, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(2))
            }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...10_000, using: &generator)))
            child.kill()
            let outcome = await child.wait()
            if outcome.signal == SIGKILL { killedMidway += 1 }
            let lines = Attach.importedLines(outcome.stdout)
            rounds.append("round \(round): waited for \(acknowledgementsBeforeKill), \(lines.count) acknowledged, "
                          + (outcome.signal == SIGKILL ? "killed" : "ended with \(outcome.exitCode.map { "exit \($0)" } ?? "signal \(outcome.signal ?? 0)")"))
            for line in lines {
                let id = try #require(line.attachment["id"] as? String)
                #expect(line.attachment["blobHash"] as? String == hashes[line.file])
                acknowledged.append((id, hashes[line.file]!))
            }
        }
        #expect(killedMidway >= 20, "\(rounds.joined(separator: "\n"))")
        #expect(!acknowledged.isEmpty, "\(rounds.joined(separator: "\n"))")

        let verify = try await Attach.run(["verify"], store: store)
        #expect(verify.exitCode == 0, "\(verify.stdout)\(verify.stderr)")

        let opened = try await AttachmentStore.open(at: store)
        for (id, hash) in acknowledged {
            let attachment = try await opened.attachment(AttachmentID(rawValue: id))
            #expect(attachment.blobHash.rawValue == hash, "attachment \(id)")
            #expect(attachment.availability == .local, "attachment \(id)")
        }

        let gc = try await Attach.run(["gc", "--grace", "0"], store: store)
        #expect(gc.exitCode == 0, "\(gc.stderr)")
        let after = try await opened.verify()
        #expect(after.isClean, "\(after)")
        #expect(after.unreferencedFiles == 0, "gc said: \(gc.stdout)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.appending(path: "tmp").path(percentEncoded: false))
        #expect(after.temporaryFiles == 0, "left in tmp/: \(leftovers)")
    }

    @Test("two processes importing into one store at once lose nothing")
    func concurrentImportersLoseNothing() async throws {
        let directory = try TemporaryDirectory("concurrent")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let photos = try Corpus.files(in: "fifty").map { $0.path(percentEncoded: false) }
        let first = try Attach.start(["import", "--json", "--new-note", "first half"] + photos.prefix(25), store: store)
        let second = try Attach.start(["import", "--json", "--new-note", "second half"] + photos.suffix(25) + photos.prefix(5), store: store)
        let (one, two) = (await first.wait(), await second.wait())
        #expect(one.exitCode == 0, "\(one.stderr)")
        #expect(two.exitCode == 0, "\(two.stderr)")
        #expect(Attach.importedLines(one.stdout).count == 25)
        #expect(Attach.importedLines(two.stdout).count == 30)

        let opened = try await AttachmentStore.open(at: store)
        let stats = try await opened.statistics()
        #expect(stats.notes == 2)
        #expect(stats.attachments == 55)
        #expect(stats.blobs == 50)
        #expect(try await opened.verify().isClean)
    }
}
