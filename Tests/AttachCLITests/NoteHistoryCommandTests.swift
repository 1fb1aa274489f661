import Foundation
import Testing
import TestSupport

@Suite("attach note history", .timeLimit(.minutes(2)))
struct NoteHistoryCommandTests {
    @Test("history lists the replaced texts newest first; --restore 2 brings the older one back; an unknown number exits 1")
    func historyListsAndRestores() async throws {
        let directory = try TemporaryDirectory("history")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let id = try await Attach.addNote("Groceries", store: store)
        for body in ["milk", "milk, eggs"] {
            #expect(try await Attach.run(["note", "edit", id, "--body", body], store: store).exitCode == 0)
        }
        let listed = try await Attach.run(["note", "history", id], store: store)
        #expect(listed.exitCode == 0)
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3 && lines[0].hasPrefix("#") && lines[1].hasPrefix("1 ") && lines[1].contains("milk"), "\(listed.stdout)")

        let restored = try await Attach.run(["note", "history", String(id.prefix(8)), "--restore", "2"], store: store)
        #expect(restored.exitCode == 0, "\(restored.stderr)")
        let shown = try await Attach.run(["note", "show", id], store: store)
        #expect(!shown.stdout.contains("milk"), "the version before the first edit had an empty body: \(shown.stdout)")

        let refused = try await Attach.run(["note", "history", id, "--restore", "9"], store: store)
        #expect(refused.exitCode == 1 && refused.stderr.contains("give a number from 1 to 3"), "\(refused.stderr)")
        let json = try await Attach.run(["note", "history", id, "--json"], store: store)
        let versions = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(versions.compactMap { $0["body"] as? String } == ["milk, eggs", "milk", ""])
    }
}
