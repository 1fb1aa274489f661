@testable import AttachmentStore
import Foundation
import Testing
import TestSupport

/// One rule for what a record may hold (``RecordRules``): the store's own writes refuse what a
/// peer would refuse, so a record this store accepts always syncs; names read from the file
/// system are mended instead of refused.
@Suite("What a record may hold", .timeLimit(.minutes(3)))
struct RecordRulesTests {
    /// Why `body` was refused, or `nil` when it was not refused with an invalid-argument error.
    static func refusal(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch AttachmentStore.Error.invalidArgument(let reason) {
            return reason
        } catch {
            Issue.record("refused with \(error), not invalidArgument")
            return nil
        }
    }

    @Test("a title with a line break, a 5,000-byte title and a 364-byte file name are refused by the store, naming the field")
    func whatEveryPeerRefusesIsRefusedHere() async throws {
        let fixture = try await StoreFixture("record-rules")
        let store = fixture.store
        let title = await Self.refusal { _ = try await store.createNote(title: "line one\nline two") }
        #expect(title == "title contains a line break (U+000A); a title is one line of text")
        let long = await Self.refusal { _ = try await store.createNote(title: String(repeating: "t", count: 5000)) }
        #expect(long == "title is 5000 bytes, more than 4096")
        let body = await Self.refusal { _ = try await store.createNote(title: "ok", body: String(repeating: "b", count: (1 << 20) + 1)) }
        #expect(body == "body is 1048577 bytes, more than 1048576")
        let note = try await store.createNote(title: "ok")
        let edited = await Self.refusal { _ = try await store.updateNote(note.id, title: "a\u{2028}b") }
        #expect(edited?.hasPrefix("title contains a line break (U+2028)") == true)
        let name = await Self.refusal {
            _ = try await store.addAttachment(to: note.id, data: Data("x".utf8), filename: String(repeating: "n", count: 360) + ".jpg")
        }
        #expect(name == "filename is 364 bytes, more than 255")
        #expect(try await store.note(note.id).title == "ok", "nothing was changed by a refused edit")
        #expect(try await store.attachments(of: note.id).isEmpty)
        #expect(try await store.notes().count == 1)
    }

    @Test("a file name given with a control or bidirectional character is refused before any byte is stored", arguments: [
        "invoice\u{202E}gpj.exe", "a\u{202A}.jpg", "a\u{2066}.jpg", "a\u{2069}.jpg", "a\u{200F}.jpg", "a\u{061C}.jpg", "a\u{85}.jpg", "a\u{9B}31m.jpg",
        "a\u{1B}[2J.jpg", "a\u{7F}.jpg", "a\tb.jpg", "a\nb.jpg", "..",
    ])
    func givenNamesAreRefused(name: String) async throws {
        let fixture = try await StoreFixture("record-names")
        let note = try await fixture.store.createNote(title: "n")
        let reason = await Self.refusal { _ = try await fixture.store.addAttachment(to: note.id, data: Data("x".utf8), filename: name) }
        #expect(reason?.hasPrefix("filename ") == true, "\(name.debugDescription): \(reason ?? "accepted")")
        let upload = await Self.refusal { _ = try await fixture.store.createUpload(for: note.id, filename: name, length: 10) }
        #expect(upload?.hasPrefix("filename ") == true, "a resumable upload refuses it at creation: \(upload ?? "accepted")")
        #expect(try await fixture.blobAndTemporaryFiles().filter { !$0.hasPrefix("tmp/") && !$0.hasPrefix("uploads/") }.isEmpty)
    }

    @Test("a name given with a folder keeps its last part, and an empty one becomes 'attachment'", arguments: [
        ("photos/2026/a.jpg", "a.jpg"), ("/", "attachment"), ("", "attachment"), ("a/", "a"),
    ])
    func givenPathsKeepTheirLastPart(given: String, recorded: String) throws {
        #expect(try RecordRules.filename(given: given) == recorded)
    }

    @Test("a file imported from the file system keeps a mended name: control and bidi characters become _")
    func fileSystemNamesAreMended() async throws {
        let fixture = try await StoreFixture("record-import")
        let folder = try TemporaryDirectory("record-import-files")
        let names = ["invoice\u{202E}gpj.exe", "tab\there.txt", "esc\u{1B}[31m.txt", "plain.txt"]
        let urls = try names.map { name in
            let url = folder.appending(name)
            try Data(name.utf8).write(to: url)
            return url
        }
        let note = try await fixture.store.createNote(title: "imported")
        let batch = fixture.store.batch(addingTo: note.id)
        try await batch.add(filesAt: urls)
        let added = try await batch.commit().map { try $0.get() }
        #expect(added.map(\.filename) == ["invoice_gpj.exe", "tab_here.txt", "esc_[31m.txt", "plain.txt"])
        let single = try await fixture.store.addAttachment(to: note.id, fromFile: urls[0])
        #expect(single.filename == "invoice_gpj.exe")
        for attachment in added + [single] { #expect(RecordRules.problem(filename: attachment.filename) == nil) }
    }

    @Test("a name from the file system over 255 bytes is shortened in its stem and keeps its extension")
    func longFileSystemNamesKeepTheirExtension() {
        let long = String(repeating: "é", count: 200) + ".jpeg"
        let mended = RecordRules.filename(fromFileSystem: long)
        #expect(mended.utf8.count <= 255 && mended.hasSuffix(".jpeg") && mended.hasPrefix("éé"))
        #expect(RecordRules.filename(fromFileSystem: "..") == "attachment")
        #expect(RecordRules.filename(fromFileSystem: "\u{202E}") == "_")
    }

    @Test("a title, body and file name the store accepts always pass every peer's validation and sync (seeded property test)")
    func acceptedRecordsAlwaysSync() async throws {
        let fixture = try await StoreFixture("record-property")
        let peer = try await StoreFixture("record-property-peer")
        var generator = SplitMix(seed: 28)
        var accepted = (notes: 0, attachments: 0, refused: 0)
        for _ in 0..<300 {
            let (title, body, name) = (HostileText.random(using: &generator), HostileText.random(using: &generator),
                                       HostileText.random(using: &generator))
            let note: Note
            do {
                note = try await fixture.store.createNote(title: title, body: body)
                accepted.notes += 1
            } catch AttachmentStore.Error.invalidArgument(let reason) {
                #expect(reason.hasPrefix("title ") || reason.hasPrefix("body "), "\(reason)")
                #expect(RecordRules.problem(title: title) != nil || RecordRules.problem(body: body) != nil)
                accepted.refused += 1
                continue
            }
            do {
                _ = try await fixture.store.addAttachment(to: note.id, data: Data(("x" + name).utf8.prefix(64)), filename: name)
                accepted.attachments += 1
            } catch AttachmentStore.Error.invalidArgument(let reason) {
                #expect(reason.hasPrefix("filename "), "\(reason)")
                accepted.refused += 1
            }
        }
        #expect(accepted.notes > 20 && accepted.attachments > 5 && accepted.refused > 20, "both sides exercised: \(accepted)")
        var sequence: Int64 = 0
        var report = SyncApplyReport()
        let validation = SyncChangeValidation(limits: PeerInputLimits())
        while true {
            let batch = try await fixture.store.changes(since: sequence, limit: 100)
            for change in batch.changes {
                let problem = validation.problem(with: change)
                #expect(problem == nil, "a record the store accepted is refused by a peer: \(problem ?? "")")
            }
            report.add(try await peer.store.apply(batch))
            sequence = batch.nextSequence
            if !batch.hasMore { break }
        }
        #expect(report.invalid == 0, "\(report.problems)")
        #expect(report.notesApplied == accepted.notes && report.attachmentsApplied == accepted.attachments)
        #expect(try await peer.store.notes(limit: 1000).count == accepted.notes)
    }
}
