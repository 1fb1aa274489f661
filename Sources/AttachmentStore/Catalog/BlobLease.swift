import Foundation
import CatalogSQL

/// Rows of the `blobLease` table: short-lived claims that keep an ingest and a garbage
/// collector, possibly in different processes or on different servers, from undoing each other
/// on an object store.
///
/// An ingest claims a blob (`upload`) before it uploads the object and releases the claim in
/// the transaction that references it. `gc` claims a blob (`delete`) before deleting an object
/// nothing references, and only when no live `upload` claim exists; an ingest that finds a live
/// `delete` claim waits for it to go. Claims are taken in catalog write transactions, which
/// the catalog serialises, and expire, so a crashed holder blocks nothing for long.
enum BlobLease {
    /// What an ingest's claim found.
    enum UploadClaim: Equatable {
        /// Claimed; `present` says the catalog already records the bytes (no upload needed).
        case claimed(present: Bool)
        /// A garbage collector is deleting this blob's object right now: try again shortly.
        case beingDeleted
    }

    /// Claims `hash` for an upload by `holder` until `expiry`, unless a live deletion holds it.
    static func claimUpload(_ hash: BlobHash, holder: String, until expiry: Date, in db: any SQLTransaction) throws -> UploadClaim {
        let now = Date()
        let deleting = try db.queryOne("""
            SELECT EXISTS (SELECT 1 FROM blobLease WHERE hash = ? AND purpose = 'delete' AND expiresAt > ?) AS found
            """, [.text(hash.rawValue), .date(now)])?.bool("found") ?? false
        guard !deleting else { return .beingDeleted }
        try claim(hash, holder: holder, purpose: "upload", until: expiry, in: db)
        return .claimed(present: try BlobRecord.isPresent(hash.rawValue, in: db))
    }

    /// Claims `hash` for deleting its object, when no live upload claim, no blob row and no piece
    /// of a resumable upload (``ResumableUploadRecord``) names it; `false` when the object must stay.
    static func claimDeletion(_ hash: BlobHash, holder: String, until expiry: Date, in db: any SQLTransaction) throws -> Bool {
        let busy = try db.queryOne("""
            SELECT (EXISTS (SELECT 1 FROM blobLease WHERE hash = ? AND purpose = 'upload' AND expiresAt > ?)
                    OR EXISTS (SELECT 1 FROM blob WHERE hash = ?)
                    OR EXISTS (SELECT 1 FROM resumableUploadPart WHERE hash = ?)) AS found
            """, [.text(hash.rawValue), .date(Date()), .text(hash.rawValue), .text(hash.rawValue)])?.bool("found") ?? true
        guard !busy else { return false }
        try claim(hash, holder: holder, purpose: "delete", until: expiry, in: db)
        return true
    }

    /// One claim as a row.
    struct Row {
        var hash: BlobHash
        var holder: String
        var purpose: String
        var expiresAt: Date
    }

    /// The columns a claim is written with, and each one's value.
    static let columns = SQLColumns<Row>(table: "blobLease", key: ["hash", "holder"], [
        .init("hash") { .text($0.hash.rawValue) },
        .init("holder") { .text($0.holder) },
        .init("purpose") { .text($0.purpose) },
        .init("expiresAt") { .date($0.expiresAt) },
    ])

    private static func claim(_ hash: BlobHash, holder: String, purpose: String, until expiry: Date, in db: any SQLTransaction) throws {
        try db.execute(columns.upsert, columns.arguments(of: Row(hash: hash, holder: holder, purpose: purpose, expiresAt: expiry)))
    }

    /// Ends `holder`'s claim on `hash`.
    static func release(_ hash: BlobHash, holder: String, in db: any SQLTransaction) throws {
        try db.execute("DELETE FROM blobLease WHERE hash = ? AND holder = ?", [.text(hash.rawValue), .text(holder)])
    }

    /// Removes claims that expired before now; returns how many.
    static func removeExpired(in db: any SQLTransaction) throws -> Int {
        try db.execute("DELETE FROM blobLease WHERE expiresAt <= ?", [.date(Date())])
    }
}
