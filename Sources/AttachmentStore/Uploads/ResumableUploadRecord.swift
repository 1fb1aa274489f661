import CatalogSQL
import Foundation

/// The `resumableUpload` and `resumableUploadPart` tables (migration `v16`): the uploads of a
/// store whose originals live in an object store (``SharedUploadStaging``), and the pieces of
/// their bytes, in order, each an object named by its hash.
///
/// An upload's offset is the sum of its parts. Its writer lease (`writer`, `writerExpiresAt`) is
/// taken by one request at a time, on any server, renewed while it receives, and released when
/// it ends; a lease that ran out is free to take. `handoverRequestedAt` (`v17`) is another
/// request's ask that the writer stop if its bytes stopped arriving (``UploadHolders``).
enum ResumableUploadRecord {
    /// One stored piece of an upload.
    struct Part: Sendable, Equatable {
        /// Where the piece starts in the file.
        var startsAt: Int64
        /// Its size.
        var byteCount: Int64
        /// The name of its object.
        var hash: BlobHash
    }

    /// What taking an upload's writer lease found.
    enum Lease: Equatable {
        case taken
        case busy
        case gone
    }

    /// The columns a new upload is written with, and each one's value.
    static let columns = SQLColumns<(id: UploadID, description: UploadDescription, json: String)>(table: "resumableUpload", key: ["id"], [
        .init("id") { .text($0.id.rawValue) },
        .init("description") { .text($0.json) },
        .init("byteCount") { .integer($0.description.length) },
        .init("createdAt") { .date($0.description.createdAt) },
        .init("lastActivityAt") { .date($0.description.createdAt) },
        .init("expiresAt") { .date($0.description.expiry(lastActivity: $0.description.createdAt)) },
    ])

    /// The columns a part is written with, and each one's value.
    static let partColumns = SQLColumns<(upload: UploadID, part: Part)>(table: "resumableUploadPart", key: ["upload", "startsAt"], [
        .init("upload") { .text($0.upload.rawValue) },
        .init("startsAt") { .integer($0.part.startsAt) },
        .init("byteCount") { .integer($0.part.byteCount) },
        .init("hash") { .text($0.part.hash.rawValue) },
    ])

    /// Inserts a new upload with no parts.
    static func insert(_ id: UploadID, _ description: UploadDescription, json: String, in db: any SQLTransaction) throws {
        _ = try db.execute(columns.insert, columns.arguments(of: (id, description, json)))
    }

    /// The upload's description, bytes held, last activity and whether it finished; `nil` when
    /// there is no such upload.
    static func find(_ id: UploadID, in db: any SQLTransaction) throws -> UploadProgress? {
        guard let row = try db.queryOne("""
            SELECT description, lastActivityAt, finishedAt,
                   (SELECT COALESCE(SUM(byteCount), 0) FROM resumableUploadPart WHERE upload = resumableUpload.id) AS held
            FROM resumableUpload WHERE id = ?
            """, [.text(id.rawValue)])
        else { return nil }
        let json = try row.requiredString("description")
        let description: UploadDescription
        do {
            description = try UploadDescription.decode(Data(json.utf8), source: "the catalog's row of upload \(id)")
        } catch {
            throw SQLDecodingError(column: "resumableUpload.description", reason: "of upload \(id) is not an upload description")
        }
        return UploadProgress(description: description, offset: try row.requiredInt64("held"),
                              lastActivity: try row.date("lastActivityAt"), finished: try row.date("finishedAt") != nil)
    }

    /// Takes the writer lease of an unfinished upload for `writer` until `expiry`, unless another
    /// writer's lease is still running at `now`.
    static func takeWriter(_ id: UploadID, writer: String, until expiry: Date, now: Date, in db: any SQLTransaction) throws -> Lease {
        let taken = try db.execute("""
            UPDATE resumableUpload SET writer = ?, writerExpiresAt = ?, handoverRequestedAt = NULL
            WHERE id = ? AND finishedAt IS NULL AND (writer IS NULL OR writerExpiresAt <= ?)
            """, [.text(writer), .date(expiry), .text(id.rawValue), .date(now)])
        if taken == 1 { return .taken }
        let unfinished = try db.queryOne("SELECT 1 AS found FROM resumableUpload WHERE id = ? AND finishedAt IS NULL",
                                         [.text(id.rawValue)]) != nil
        return unfinished ? .busy : .gone
    }

    /// Extends `writer`'s lease to `expiry`; whether it still held it.
    static func renewWriter(_ id: UploadID, writer: String, until expiry: Date, in db: any SQLTransaction) throws -> Bool {
        try db.execute("UPDATE resumableUpload SET writerExpiresAt = ? WHERE id = ? AND writer = ?",
                       [.date(expiry), .text(id.rawValue), .text(writer)]) == 1
    }

    /// Asks the upload's writer, if it has one, to stop when its bytes stopped arriving (the
    /// lock handover, `v17`).
    static func requestHandover(_ id: UploadID, now: Date, in db: any SQLTransaction) throws {
        _ = try db.execute("UPDATE resumableUpload SET handoverRequestedAt = ? WHERE id = ? AND writer IS NOT NULL",
                           [.date(now), .text(id.rawValue)])
    }

    /// Whether a request asked `writer`, holding the upload's lease, to hand it over.
    static func handoverRequested(_ id: UploadID, writer: String, in db: any SQLTransaction) throws -> Bool {
        try db.queryOne("SELECT 1 AS found FROM resumableUpload WHERE id = ? AND writer = ? AND handoverRequestedAt IS NOT NULL",
                        [.text(id.rawValue), .text(writer)]) != nil
    }

    /// Ends `writer`'s lease, if it still holds it.
    static func releaseWriter(_ id: UploadID, writer: String, in db: any SQLTransaction) throws {
        _ = try db.execute("UPDATE resumableUpload SET writer = NULL, writerExpiresAt = NULL, handoverRequestedAt = NULL WHERE id = ? AND writer = ?",
                           [.text(id.rawValue), .text(writer)])
    }

    /// Whether `writer` holds the upload's lease.
    static func isWriter(_ id: UploadID, writer: String, in db: any SQLTransaction) throws -> Bool {
        try db.queryOne("SELECT 1 AS found FROM resumableUpload WHERE id = ? AND writer = ?",
                        [.text(id.rawValue), .text(writer)]) != nil
    }

    /// The bytes the upload holds (the sum of its parts).
    static func heldBytes(_ id: UploadID, in db: any SQLTransaction) throws -> Int64 {
        try db.queryOne("SELECT COALESCE(SUM(byteCount), 0) AS held FROM resumableUploadPart WHERE upload = ?",
                        [.text(id.rawValue)])?.requiredInt64("held") ?? 0
    }

    /// Appends a part and moves the upload's last activity (and so its expiry) to `now`.
    static func addPart(_ part: Part, to id: UploadID, description: UploadDescription, now: Date, in db: any SQLTransaction) throws {
        _ = try db.execute(partColumns.insert, partColumns.arguments(of: (id, part)))
        _ = try db.execute("UPDATE resumableUpload SET lastActivityAt = ?, expiresAt = ? WHERE id = ?",
                           [.date(now), .date(description.expiry(lastActivity: now)), .text(id.rawValue)])
    }

    /// The upload's parts in file order.
    static func parts(_ id: UploadID, in db: any SQLTransaction) throws -> [Part] {
        try db.query("SELECT startsAt, byteCount, hash FROM resumableUploadPart WHERE upload = ? ORDER BY startsAt",
                     [.text(id.rawValue)]).map { row in
            let text = try row.requiredString("hash")
            guard let hash = BlobHash(rawValue: text) else {
                throw SQLDecodingError(column: "resumableUploadPart.hash", reason: "holds \(text.prefix(80)), not a SHA-256 hash")
            }
            return Part(startsAt: try row.requiredInt64("startsAt"), byteCount: try row.requiredInt64("byteCount"), hash: hash)
        }
    }

    /// Marks the upload finished (it became its attachment), ends its lease and drops its parts.
    static func markFinished(_ id: UploadID, now: Date, in db: any SQLTransaction) throws {
        _ = try db.execute("DELETE FROM resumableUploadPart WHERE upload = ?", [.text(id.rawValue)])
        _ = try db.execute("UPDATE resumableUpload SET finishedAt = ?, writer = NULL, writerExpiresAt = NULL WHERE id = ?",
                           [.date(now), .text(id.rawValue)])
    }

    /// Deletes the upload and its parts.
    static func delete(_ id: UploadID, in db: any SQLTransaction) throws {
        _ = try db.execute("DELETE FROM resumableUploadPart WHERE upload = ?", [.text(id.rawValue)])
        _ = try db.execute("DELETE FROM resumableUpload WHERE id = ?", [.text(id.rawValue)])
    }

    /// Deletes (or, in a dry run, counts) the uploads past their expiry at `now` that no writer
    /// holds; how many, and the bytes of their parts.
    static func deleteExpired(now: Date, dryRun: Bool, in db: any SQLTransaction) throws -> (uploads: Int, bytes: Int64) {
        let rows = try db.query("""
            SELECT id, (SELECT COALESCE(SUM(byteCount), 0) FROM resumableUploadPart WHERE upload = resumableUpload.id) AS held
            FROM resumableUpload
            WHERE expiresAt < ? AND (writer IS NULL OR writerExpiresAt <= ?)
            """, [.date(now), .date(now)])
        var bytes: Int64 = 0
        for row in rows {
            bytes += try row.requiredInt64("held")
            guard !dryRun else { continue }
            let id = try row.requiredString("id")
            _ = try db.execute("DELETE FROM resumableUploadPart WHERE upload = ?", [.text(id)])
            _ = try db.execute("DELETE FROM resumableUpload WHERE id = ?", [.text(id)])
        }
        return (rows.count, bytes)
    }

    /// Every hash a part of a live upload names: objects `gc` must keep and `verify` knows.
    static func partHashes(in db: any SQLTransaction) throws -> Set<String> {
        Set(try db.query("SELECT DISTINCT hash FROM resumableUploadPart", []).map { try $0.requiredString("hash") })
    }
}
