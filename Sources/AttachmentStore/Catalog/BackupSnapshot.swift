import CatalogSQL
import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

/// A catalog snapshot in a backup's `tmp/`: what it references, and the last changes that make
/// it the backup's catalog.
struct BackupSnapshot {
    /// One original the snapshot references and the backup must hold.
    struct Original: Sendable {
        var hash: BlobHash
        var byteCount: Int64
    }

    let path: String
    let notes: Int
    let attachments: Int
    /// Present originals that an attachment or image entry references, as files (an empty list
    /// for a store that keeps its bytes in the catalog).
    let blobs: [Original]

    /// Reads what the snapshot at `path` references. Blocks.
    /// - Throws: ``AttachmentStore/Error/damagedCatalogRow(_:)`` when any blob hash in it is
    ///   malformed, before any original is placed.
    static func read(_ path: String) throws -> BackupSnapshot {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            let transaction = GRDBTransaction(db: db)
            if let malformed = try BlobHashColumns.malformed(in: transaction, .sqlite, limit: 1).first {
                throw AttachmentStore.Error.damagedCatalogRow(malformed)
            }
            let placement = try StoreSetting.value("blobPlacement", in: transaction)
            let unreferenced = Set(try BlobRecord.unreferencedCountingReferences(in: transaction).map(\.hash))
            let originals = placement.flatMap(BlobPlacement.init(rawValue:))?.keepsOriginalsInCatalog == true ? [] : try BlobRecord.all(in: .present, in: transaction)
                .filter { !unreferenced.contains($0.hash) }
                .map { Original(hash: try $0.validatedHash, byteCount: $0.byteCount) }
            return BackupSnapshot(path: path, notes: Int(try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM note") ?? 0),
                                  attachments: try AttachmentRecord.count(in: transaction),
                                  blobs: originals.sorted { $0.hash < $1.hash })
        }
    }

    /// Drops the rows of originals nothing references (garbage `gc` had not yet collected),
    /// object-store leases, login sessions and resumable uploads (all belong to the running
    /// servers), recounts the statistics the catalog keeps, and — for a store whose originals
    /// live in an object store — records that the backup keeps them as files. Returns the
    /// snapshot's size. Blocks.
    func finish(placingFiles: Bool) throws -> Int64 {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            let transaction = GRDBTransaction(db: db)
            for record in try BlobRecord.unreferencedCountingReferences(in: transaction) { try BlobRecord.delete(record.hash, in: transaction) }
            try db.execute(sql: "DELETE FROM blobLease")
            try db.execute(sql: "DELETE FROM loginSession")
            try db.execute(sql: "DELETE FROM resumableUploadPart")
            try db.execute(sql: "DELETE FROM resumableUpload")
            // The figures a catalog keeps are counted again from its rows: a backup's own are
            // never trusted (a restore makes its store from this copy).
            for statement in CatalogTally.rebuildStatements(.sqlite) { try db.execute(sql: statement) }
            if placingFiles {
                try StoreSetting.set("blobPlacement", BlobPlacement.files.rawValue, in: transaction)
                try StoreSetting.remove("objectStoreLocation", in: transaction)
            }
        }
        try queue.close()
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open \(path)") }
        defer { close(fd) }
        try POSIXFile.sync(fd)
        return Int64(try POSIXFile.status(path)?.st_size ?? 0)
    }
}
