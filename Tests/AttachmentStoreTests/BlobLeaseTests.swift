@testable import AttachmentStore
import CatalogSQL
import Foundation
import Testing
import TestSupport

/// The claims that keep an ingest and a garbage collector from undoing each other, on a real
/// catalog (whichever backend the run uses).
@Suite("Blob leases")
struct BlobLeaseTests {
    static let hash = BlobHash(rawValue: String(repeating: "5a", count: 32))!
    static let later = Date().addingTimeInterval(600)

    @Test("an upload claim keeps gc from deleting the object; released, it no longer does")
    func uploadClaimBlocksDeletion() async throws {
        let catalog = try await StoreFixture().store.catalog
        #expect(try await catalog.write { try BlobLease.claimUpload(Self.hash, holder: "ingest-1", until: Self.later, in: $0) }
                == .claimed(present: false))
        #expect(try await catalog.write { try BlobLease.claimDeletion(Self.hash, holder: "gc-1", until: Self.later, in: $0) } == false)
        try await catalog.write { try BlobLease.release(Self.hash, holder: "ingest-1", in: $0) }
        #expect(try await catalog.write { try BlobLease.claimDeletion(Self.hash, holder: "gc-1", until: Self.later, in: $0) } == true)
    }

    @Test("a live deletion claim turns an upload away until it is released or expires")
    func deletionClaimTurnsUploadsAway() async throws {
        let catalog = try await StoreFixture().store.catalog
        #expect(try await catalog.write { try BlobLease.claimDeletion(Self.hash, holder: "gc-1", until: Self.later, in: $0) })
        #expect(try await catalog.write { try BlobLease.claimUpload(Self.hash, holder: "ingest-1", until: Self.later, in: $0) } == .beingDeleted)
        try await catalog.write { try BlobLease.release(Self.hash, holder: "gc-1", in: $0) }
        #expect(try await catalog.write { try BlobLease.claimUpload(Self.hash, holder: "ingest-1", until: Self.later, in: $0) }
                == .claimed(present: false))
    }

    @Test("expired claims hold nothing and are swept; live ones stay")
    func expiredClaimsAreSwept() async throws {
        let catalog = try await StoreFixture().store.catalog
        let past = Date().addingTimeInterval(-1)
        let other = BlobHash(rawValue: String(repeating: "6b", count: 32))!
        try await catalog.write { db in
            _ = try BlobLease.claimDeletion(Self.hash, holder: "crashed-gc", until: past, in: db)
            _ = try BlobLease.claimUpload(other, holder: "live-ingest", until: Self.later, in: db)
        }
        #expect(try await catalog.write { try BlobLease.claimUpload(Self.hash, holder: "ingest-2", until: Self.later, in: $0) }
                == .claimed(present: false), "a crashed collector's expired claim blocks nothing")
        #expect(try await catalog.write { try BlobLease.removeExpired(in: $0) } == 1)
        #expect(try await catalog.write { try BlobLease.removeExpired(in: $0) } == 0)
        #expect(try await catalog.write { try BlobLease.claimDeletion(other, holder: "gc-2", until: Self.later, in: $0) } == false)
    }

    @Test("a blob the catalog records is never claimed for deletion, and an upload claim says it is present")
    func recordedBlobIsNeverDeleted() async throws {
        let fixture = try await StoreFixture()
        let note = try await fixture.store.createNote(title: "kept")
        let attachment = try await fixture.store.addAttachment(to: note.id, data: Data("kept bytes".utf8), filename: "kept.txt")
        let catalog = fixture.store.catalog
        #expect(try await catalog.write { try BlobLease.claimDeletion(attachment.blobHash, holder: "gc", until: Self.later, in: $0) } == false)
        #expect(try await catalog.write { try BlobLease.claimUpload(attachment.blobHash, holder: "ingest", until: Self.later, in: $0) }
                == .claimed(present: true))
    }

    @Test("the same holder claiming again renews its claim instead of adding one")
    func reclaimingRenews() async throws {
        let catalog = try await StoreFixture().store.catalog
        let soon = Date().addingTimeInterval(-1)
        try await catalog.write { db in _ = try BlobLease.claimUpload(Self.hash, holder: "ingest", until: soon, in: db) }
        try await catalog.write { db in _ = try BlobLease.claimUpload(Self.hash, holder: "ingest", until: Self.later, in: db) }
        #expect(try await catalog.read { try $0.scalar("SELECT COUNT(*) FROM blobLease") } == .integer(1))
        #expect(try await catalog.write { try BlobLease.removeExpired(in: $0) } == 0, "the renewed claim is live")
    }
}
