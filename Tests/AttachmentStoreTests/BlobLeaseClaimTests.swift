@testable import AttachmentStore
import CatalogSQL
import Foundation
import Testing
import TestSupport

/// Upload and deletion claims on a real catalog (whichever backend the run uses), beyond
/// ``BlobLeaseTests``: releases by the wrong holder or for the wrong blob, refused claims that
/// leave nothing behind, several uploaders, expired upload claims, and rows that are not present.
@Suite("Blob lease claims")
struct BlobLeaseClaimTests {
    static let hash = BlobHash(rawValue: String(repeating: "7c", count: 32))!
    static let other = BlobHash(rawValue: String(repeating: "8d", count: 32))!
    static var later: Date { Date().addingTimeInterval(600) }
    static var past: Date { Date().addingTimeInterval(-60) }

    static func claims(_ catalog: Catalog) async throws -> SQLValue? {
        try await catalog.read { try $0.scalar("SELECT COUNT(*) FROM blobLease") }
    }

    @Test("a release by another holder, or for another blob, leaves the claim in force")
    func wrongHolderReleasesNothing() async throws {
        let catalog = try await StoreFixture().store.catalog
        _ = try await catalog.write { try BlobLease.claimUpload(Self.hash, holder: "ingest-1", until: Self.later, in: $0) }
        try await catalog.write { db in
            try BlobLease.release(Self.hash, holder: "ingest-2", in: db)
            try BlobLease.release(Self.other, holder: "ingest-1", in: db)
            try BlobLease.release(Self.hash, holder: "INGEST-1", in: db)
        }
        #expect(try await Self.claims(catalog) == .integer(1))
        #expect(try await catalog.write { try BlobLease.claimDeletion(Self.hash, holder: "gc", until: Self.later, in: $0) } == false)
    }

    @Test("releasing a claim that does not exist does nothing and throws nothing")
    func releasingNothing() async throws {
        let catalog = try await StoreFixture().store.catalog
        try await catalog.write { try BlobLease.release(Self.hash, holder: "nobody", in: $0) }
        #expect(try await Self.claims(catalog) == .integer(0))
    }

    @Test("a deletion claim refused, or an upload turned away, leaves no claim behind")
    func refusedClaimsLeaveNothing() async throws {
        let catalog = try await StoreFixture().store.catalog
        _ = try await catalog.write { try BlobLease.claimUpload(Self.hash, holder: "ingest", until: Self.later, in: $0) }
        #expect(try await catalog.write { try BlobLease.claimDeletion(Self.hash, holder: "gc", until: Self.later, in: $0) } == false)
        #expect(try await Self.claims(catalog) == .integer(1))
        #expect(try await catalog.write { try BlobLease.claimDeletion(Self.other, holder: "gc", until: Self.later, in: $0) })
        #expect(try await catalog.write { try BlobLease.claimUpload(Self.other, holder: "ingest", until: Self.later, in: $0) } == .beingDeleted)
        #expect(try await Self.claims(catalog) == .integer(2), "one upload claim on the first blob, one deletion claim on the second")
    }

    @Test("a claim on one blob neither blocks nor answers for another")
    func blobsAreIndependent() async throws {
        let catalog = try await StoreFixture().store.catalog
        _ = try await catalog.write { try BlobLease.claimUpload(Self.hash, holder: "ingest", until: Self.later, in: $0) }
        #expect(try await catalog.write { try BlobLease.claimDeletion(Self.other, holder: "gc", until: Self.later, in: $0) })
        #expect(try await catalog.write { try BlobLease.claimUpload(Self.hash, holder: "ingest-2", until: Self.later, in: $0) }
                == .claimed(present: false), "the deletion of another blob does not turn this upload away")
    }

    @Test("with two uploads of the same blob in flight, deletion waits until both are released")
    func twoUploaders() async throws {
        let catalog = try await StoreFixture().store.catalog
        for holder in ["ingest-1", "ingest-2"] {
            #expect(try await catalog.write { try BlobLease.claimUpload(Self.hash, holder: holder, until: Self.later, in: $0) }
                    == .claimed(present: false))
        }
        try await catalog.write { try BlobLease.release(Self.hash, holder: "ingest-1", in: $0) }
        #expect(try await catalog.write { try BlobLease.claimDeletion(Self.hash, holder: "gc", until: Self.later, in: $0) } == false)
        try await catalog.write { try BlobLease.release(Self.hash, holder: "ingest-2", in: $0) }
        #expect(try await catalog.write { try BlobLease.claimDeletion(Self.hash, holder: "gc", until: Self.later, in: $0) })
    }

    @Test("an expired upload claim does not keep gc from deleting, and is swept with the other expired claims")
    func expiredUploadClaim() async throws {
        let catalog = try await StoreFixture().store.catalog
        try await catalog.write { db in
            _ = try BlobLease.claimUpload(Self.hash, holder: "crashed-ingest", until: Self.past, in: db)
            _ = try BlobLease.claimDeletion(Self.other, holder: "crashed-gc", until: Self.past, in: db)
        }
        #expect(try await catalog.write { try BlobLease.claimDeletion(Self.hash, holder: "gc", until: Self.later, in: $0) })
        #expect(try await Self.claims(catalog) == .integer(3))
        #expect(try await catalog.write { try BlobLease.removeExpired(in: $0) } == 2)
        #expect(try await Self.claims(catalog) == .integer(1), "the live deletion claim stays")
    }

    @Test("a blob the catalog records but does not hold (remote, evicted, damaged) needs an upload, yet is never claimed for deletion", arguments: [
        BlobRecord.State.remote, .evicted, .damaged,
    ])
    func rowNotPresent(state: BlobRecord.State) async throws {
        let catalog = try await StoreFixture().store.catalog
        try await catalog.write { db in
            try BlobRecord(hash: Self.hash.rawValue, byteCount: 10, state: state, createdAt: Date()).insert(db)
        }
        #expect(try await catalog.write { try BlobLease.claimDeletion(Self.hash, holder: "gc", until: Self.later, in: $0) } == false)
        #expect(try await catalog.write { try BlobLease.claimUpload(Self.hash, holder: "ingest", until: Self.later, in: $0) }
                == .claimed(present: false))
    }
}
