import CatalogSQL
import Foundation
import Testing
import TestSupport
@testable import AttachmentStore

/// Rows a tampered catalog holds — blob hashes that are paths out of the store — written around
/// the schema's check into a live catalog (any backend): every operation that would turn them
/// into a path refuses, and `verify` reports them, while a file outside the store stays as it was.
@Suite("Crafted catalog rows are refused, not acted on", .timeLimit(.minutes(3)))
struct CraftedCatalogRowTests {
    /// A store with one real photo, a victim file beside the store folder, and two crafted blob
    /// rows naming that file: one an attachment references, one nothing references (`gc`'s).
    struct Scene {
        let fixture: StoreFixture
        let victim: URL
        let victimBytes = Data("the user's own file\n".utf8)
        let attachmentID: AttachmentID
        let referencedHash: String
        let unreferencedHash: String

        init(_ label: String) async throws {
            fixture = try await StoreFixture(label)
            let outside = fixture.directory.appending("outside")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            victim = outside.appending(path: "victim")
            try victimBytes.write(to: victim)
            let note = try await fixture.store.createNote(title: "real")
            _ = try await fixture.store.addAttachment(to: note.id, fromFile: try Corpus.file("good/Dune.jpg"))
            await fixture.store.waitForBackgroundWork()

            referencedHash = HostileCatalog.siblingHash("outside/victim")
            unreferencedHash = HostileCatalog.siblingHash("outside//victim")
            let id = UUID().uuidString.lowercased()
            attachmentID = AttachmentID(rawValue: id)
            try await HostileCatalog.tamper(fixture.store.catalog.database,
                                            HostileCatalog.plantingAttachment(hash: referencedHash, byteCount: 3, attachmentID: id)
                                                + [HostileCatalog.plantingBlob(hash: unreferencedHash, byteCount: 3)])
        }

        /// The victim is where it was, with its bytes; nothing else appeared beside the store.
        func expectOutsideUntouched() throws {
            #expect(try Data(contentsOf: victim) == victimBytes)
            #expect(Files.tree(fixture.directory.url).filter { !$0.hasPrefix("store/") && !$0.hasPrefix("shared-blobs/") } == ["outside/victim"])
        }
    }

    @Test("gc refuses a catalog whose blob hash is a path before it removes anything, naming the row")
    func garbageCollectionRefuses() async throws {
        let scene = try await Scene("crafted-gc")
        await #expect {
            try await scene.fixture.store.collectGarbage(olderThan: .zero)
        } throws: { error in
            guard case AttachmentStore.Error.damagedCatalogRow(let damage) = error else { return false }
            return damage.value.hasPrefix("..//") && "\(error)".contains("is not a SHA-256")
        }
        try scene.expectOutsideUntouched()
    }

    @Test("a scrub refuses a row whose blob hash is a path: nothing is re-hashed or moved to quarantine")
    func scrubRefuses() async throws {
        let scene = try await Scene("crafted-scrub")
        await #expect(throws: AttachmentStore.Error.self) { try await scene.fixture.store.scrub(upTo: .max) }
        try scene.expectOutsideUntouched()
        #expect(Files.tree(scene.fixture.storeURL.appending(path: "quarantine")).isEmpty)
    }

    @Test("exporting or reading an attachment whose blob hash is a path is refused, and the file outside is never read")
    func exportRefuses() async throws {
        let scene = try await Scene("crafted-export")
        await #expect {
            try await scene.fixture.store.original(of: scene.attachmentID)
        } throws: { error in
            guard case AttachmentStore.Error.damagedCatalogRow(let damage) = error else { return false }
            return damage.table == "attachment" && damage.row == scene.attachmentID.rawValue && damage.value == scene.referencedHash
        }
        await #expect(throws: AttachmentStore.Error.self) { try await scene.fixture.store.allAttachments() }
        try scene.expectOutsideUntouched()
    }

    @Test("verify reports every row whose blob hash is a path as catalog damage, without acting on it")
    func verifyReports() async throws {
        let scene = try await Scene("crafted-verify")
        let report = try await scene.fixture.store.verify()
        #expect(!report.isClean)
        let crafted = report.catalogProblems.filter { $0.contains("is not a SHA-256") }
        #expect(crafted.filter { $0.hasPrefix("blob row") && $0.contains("victim") }.count == 2, "\(report.catalogProblems)")
        #expect(crafted.contains { $0.hasPrefix("attachment row \"\(scene.attachmentID.rawValue)\"") }, "\(report.catalogProblems)")
        #expect(report.blobsChecked == 1, "only the real photo is re-hashed")
        let repaired = try await scene.fixture.store.repair(report.damage)
        #expect(repaired.quarantined.isEmpty)
        try scene.expectOutsideUntouched()
    }

    @Test("a malformed hash is reported with its control characters escaped, so it cannot forge a line")
    func malformedValueIsQuoted() {
        let damage = BlobHashColumns.Malformed(table: "blob", column: "hash", row: "x", value: "ab\ncd\u{1B}[2J\u{202E}")
        #expect(damage.description == #"blob row "x": hash "ab\u{a}cd\u{1b}[2J\u{202e}" is not a SHA-256 (64 lowercase hexadecimal digits)"#)
    }
}
