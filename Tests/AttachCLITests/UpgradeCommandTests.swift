import Foundation
import Testing
import TestSupport

/// What a user sees when the `attach` in hand is older than the store it is pointed at.
@Suite("attach against stores of other releases", .timeLimit(.minutes(2)))
struct UpgradeCommandTests {
    @Test("every earlier release's store lists and verifies clean with this attach", arguments: try UpgradeFixture.all())
    func earlierStoreWorks(fixture: UpgradeFixture) async throws {
        let directory = try TemporaryDirectory("upgrade-cli")
        let store = try fixture.copy(into: directory)
        let verify = try await Attach.run(["verify"], store: store)
        #expect(verify.exitCode == 0, "\(verify.stdout)\(verify.stderr)")
        let list = try await Attach.run(["list", "--json"], store: store)
        #expect(list.exitCode == 0)
        let listed = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]]
        #expect(Set(listed?.compactMap { $0["id"] as? String } ?? []) == Set(fixture.contents.attachments.map(\.id)))
    }

    @Test("an older attach refuses a store a later release migrated, names both releases, exits 1 and changes nothing")
    func olderAttachRefusesLaterStore() async throws {
        let fixture = try #require(try UpgradeFixture.all().last)
        let directory = try TemporaryDirectory("future-cli")
        let store = try fixture.copy(into: directory)
        try UpgradeFixture.pretendMigratedByLaterRelease(store, release: "9.1.0", migration: "v99: from the future")
        let catalog = store.appending(path: "catalog.sqlite")
        let before = try Data(contentsOf: catalog)
        for command in [["list"], ["verify"], ["gc", "--grace", "0"], ["import", "--new-note", "x", catalog.path(percentEncoded: false)]] {
            let outcome = try await Attach.run(command, store: store)
            #expect(outcome.exitCode == 1, "\(command): \(outcome.stderr)")
            #expect(outcome.stderr.contains("attach 9.1.0") && outcome.stderr.contains("Install attach 9.1.0 or later"),
                    "\(command): \(outcome.stderr)")
        }
        #expect(try Data(contentsOf: catalog) == before)
    }
}
