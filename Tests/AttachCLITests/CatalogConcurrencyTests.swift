import AttachmentStore
import Foundation
import Testing
import TestSupport

/// Several processes opening a store that nobody has open, at the same instant: they open its
/// catalog one after another, so none meets a write-ahead log another is just creating.
@Suite("Processes opening one store at once", .timeLimit(.minutes(3)))
struct CatalogConcurrencyTests {
    @Test("three `attach note add` started together on a store nobody has open all succeed, 30 times over")
    func commandsStartingTogetherAllSucceed() async throws {
        let directory = try TemporaryDirectory("open-together")
        // Before the fix, about one round in ten failed: "database is locked" (a read-only check
        // meeting another process's recovery) or "no such table: note" (GRDB writing a fresh
        // write-ahead log while another process had just read the schema).
        for round in 0..<30 {
            let store = directory.appending("store-\(round)")
            try await Attach.initStore(store)
            let children = try ["one", "two", "three"].map { try Attach.start(["note", "add", $0], store: store) }
            var outcomes: [ChildProcess.Outcome] = []
            for child in children { outcomes.append(await child.wait()) }
            for outcome in outcomes {
                #expect(outcome.exitCode == 0, "round \(round): \(outcome.stderr)")
            }
            let opened = try await AttachmentStore.open(at: store)
            #expect(try await opened.statistics().notes == 3, "round \(round)")
            #expect(try await opened.verify().isClean, "round \(round)")
        }
    }
}
