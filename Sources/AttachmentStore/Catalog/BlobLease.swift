import Foundation
import GRDB

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
    static func claimUpload(_ hash: BlobHash, holder: String, until expiry: Date, in db: Database) throws -> UploadClaim {
        let now = Date()
        let deleting = try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM blobLease WHERE hash = ? AND purpose = 'delete' AND expiresAt > ?)
            """, arguments: [hash.rawValue, now]) ?? false
        guard !deleting else { return .beingDeleted }
        try db.execute(sql: "INSERT OR REPLACE INTO blobLease (hash, holder, purpose, expiresAt) VALUES (?, ?, 'upload', ?)",
                       arguments: [hash.rawValue, holder, expiry])
        let present = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM blob WHERE hash = ? AND state = 'present')",
                                        arguments: [hash.rawValue]) ?? false
        return .claimed(present: present)
    }

    /// Claims `hash` for deleting its object, when no live upload claim and no catalog row
    /// exists for it; `false` when the object must stay.
    static func claimDeletion(_ hash: BlobHash, holder: String, until expiry: Date, in db: Database) throws -> Bool {
        let busy = try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM blobLease WHERE hash = ? AND purpose = 'upload' AND expiresAt > ?)
                OR EXISTS (SELECT 1 FROM blob WHERE hash = ?)
            """, arguments: [hash.rawValue, Date(), hash.rawValue]) ?? true
        guard !busy else { return false }
        try db.execute(sql: "INSERT OR REPLACE INTO blobLease (hash, holder, purpose, expiresAt) VALUES (?, ?, 'delete', ?)",
                       arguments: [hash.rawValue, holder, expiry])
        return true
    }

    /// Ends `holder`'s claim on `hash`.
    static func release(_ hash: BlobHash, holder: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM blobLease WHERE hash = ? AND holder = ?", arguments: [hash.rawValue, holder])
    }

    /// Removes claims that expired before now; returns how many.
    static func removeExpired(in db: Database) throws -> Int {
        try db.execute(sql: "DELETE FROM blobLease WHERE expiresAt <= ?", arguments: [Date()])
        return db.changesCount
    }
}
