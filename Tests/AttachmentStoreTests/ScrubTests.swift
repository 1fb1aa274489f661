import AttachmentStore
import Foundation
import Testing
import TestSupport

@Suite("Scrubbing and self-repair", .timeLimit(.minutes(3)))
struct ScrubTests {
    @Test("a flipped byte is found by the scrub, quarantined (never served), and repaired from a peer holding the same hash")
    func scrubFindsQuarantinesAndRepairs() async throws {
        let peer = try await StoreFixture("peer")
        let fixture = try await StoreFixture("scrubbed")
        guard fixture.store.blobPlacement == .files else { return }
        let photo = try Corpus.file("good/Dune.jpg")
        let peerNote = try await peer.store.createNote(title: "copy")
        _ = try await peer.store.addAttachment(to: peerNote.id, fromFile: photo)
        let note = try await fixture.store.createNote(title: "original")
        let attachment = try await fixture.store.addAttachment(to: note.id, fromFile: photo)
        let other = try await fixture.store.addAttachment(to: note.id, fromFile: try Corpus.file("good/Aqua.jpg"))
        await fixture.store.waitForBackgroundWork()

        let first = try await fixture.store.scrub(upTo: .max)
        #expect(first.blobsChecked == 2 && first.passFinished && first.quarantined.isEmpty)

        try Files.flipByte(in: Files.blobPath(in: fixture.storeURL, hash: attachment.blobHash.rawValue))
        try await Task.sleep(for: .milliseconds(5))  // a new pass: what the last one checked is due again
        // No peer to repair from yet: found, quarantined, and never served.
        let found = try await fixture.store.scrub(upTo: .max)
        #expect(found.quarantined == [attachment.blobHash])
        #expect(found.unrepaired.map(\.hash) == [attachment.blobHash])
        #expect(try await fixture.store.attachment(attachment.id).state == .damaged)
        #expect(try await fixture.store.attachment(other.id).state == .present)
        await #expect(throws: AttachmentStore.Error.self) { try await fixture.store.original(of: attachment.id) }
        let verdict = try await fixture.store.verify()
        #expect(verdict.damage.map(\.kind) == [.quarantined])
        #expect(FileManager.default.fileExists(atPath: fixture.storeURL.appending(path: "quarantine/\(attachment.blobHash.rawValue)").path))
        var stats = try await fixture.store.statistics()
        #expect((stats.damagedBlobs, stats.scrubDamageFound, stats.scrubRepaired) == (1, 1, 0))

        // With the peer, the next scrub repairs it.
        let healed = try await fixture.reopen { $0.remoteBlobSource = InProcessPeer(peer: peer.store) }
        let repaired = try await healed.scrub(upTo: .max)
        #expect(repaired.repaired == [attachment.blobHash])
        #expect(try await healed.original(of: attachment.id).data() == (try Data(contentsOf: photo)))
        #expect(try await healed.verify().isClean)
        stats = try await healed.statistics()
        #expect((stats.damagedBlobs, stats.scrubDamageFound, stats.scrubRepaired) == (0, 1, 1))
        #expect(Files.tree(fixture.storeURL.appending(path: "quarantine")).isEmpty, "the quarantined copy goes once repaired")
    }

    @Test("verify finds damage and repair fixes it from a peer, so verify is clean again")
    func verifyRepair() async throws {
        let peer = try await StoreFixture("peer")
        let fixture = try await StoreFixture("repaired")
        guard fixture.store.blobPlacement == .files else { return }
        let photo = try Corpus.file("special/orientation-6.jpg")
        let peerNote = try await peer.store.createNote(title: "copy")
        _ = try await peer.store.addAttachment(to: peerNote.id, fromFile: photo)
        let note = try await fixture.store.createNote(title: "original")
        let attachment = try await fixture.store.addAttachment(to: note.id, fromFile: photo)
        try Files.flipByte(in: Files.blobPath(in: fixture.storeURL, hash: attachment.blobHash.rawValue))

        let store = try await fixture.reopen { $0.remoteBlobSource = InProcessPeer(peer: peer.store) }
        let damage = try await store.verify().damage
        #expect(damage.map(\.kind) == [.hashMismatch])
        let outcome = try await store.repair(damage)
        #expect(outcome.quarantined == [attachment.blobHash] && outcome.repaired == [attachment.blobHash])
        #expect(try await store.verify().isClean)
        #expect(try await store.original(of: attachment.id).data() == (try Data(contentsOf: photo)))
    }

    @Test("a scrub stops at its byte limit and goes on where it stopped, oldest-checked first")
    func scrubIsBoundedAndResumes() async throws {
        let fixture = try await StoreFixture("bounded")
        let note = try await fixture.store.createNote(title: "many")
        for name in ["good/Dune.jpg", "good/Aqua.jpg", "good/Blinds.jpg"] {
            _ = try await fixture.store.addAttachment(to: note.id, fromFile: try Corpus.file(name))
        }
        let passStart = Date()
        let one = try await fixture.store.scrub(upTo: 1, passStart: passStart)
        #expect(one.blobsChecked == 1 && !one.passFinished)
        let rest = try await fixture.store.scrub(upTo: .max, passStart: passStart)
        #expect(rest.blobsChecked == 2 && rest.passFinished)
    }
}
