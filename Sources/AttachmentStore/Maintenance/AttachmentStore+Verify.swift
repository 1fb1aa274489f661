import Crypto
import Foundation
import CatalogSQL

extension AttachmentStore {
    /// Re-hashes every blob and checks every reference and the catalog itself.
    ///
    /// Reads only; changes nothing. Damage is reported with the attachments it breaks; a row
    /// whose blob hash is malformed is one of the ``VerificationReport/catalogProblems``.
    /// Unreferenced files and temporary files are counted but are not damage (`gc` handles them).
    public func verify() async throws -> VerificationReport {
        struct Snapshot: Sendable {
            var blobs: [BlobRecord]
            var quarantined: [BlobRecord]
            var attachments: [AttachmentRecord]
            var imageEntries: [ImageEntryRecord]
            var problems: [String]
        }
        // A row whose blob hash is not a hash is damage to report; it is never re-hashed or
        // opened as a path (`--repair` only works on the blobs below).
        let problems = try await catalog.integrityProblems() + catalog.malformedBlobHashes().map(\.description)
        let snapshot = try await catalog.read { db in
            Snapshot(
                blobs: try BlobRecord.all(in: .present, in: db),
                quarantined: try BlobRecord.all(in: .damaged, in: db),
                attachments: try AttachmentRecord.all(in: db),
                imageEntries: try ImageEntryRecord.all(in: db),
                problems: problems
            )
        }
        var report = VerificationReport()
        report.catalogProblems = snapshot.problems
        report.miscountedFigures = try await catalog.tallyProblems()
        report.attachmentsChecked = snapshot.attachments.count
        let attachmentsByHash = Dictionary(grouping: snapshot.attachments, by: \.blobHash)
        let keysByHash = Dictionary(grouping: snapshot.imageEntries, by: \.blobHash)

        let quarantined = Set(snapshot.quarantined.map(\.hash))
        for record in (snapshot.blobs + snapshot.quarantined).sorted(by: { $0.hash < $1.hash }) {
            try Task.checkCancellation()
            guard let hash = try? record.validatedHash else { continue }  // among the catalog's problems
            let finding: (VerificationReport.Damage.Kind, String)? = quarantined.contains(record.hash)
                ? (.quarantined, "failed a re-hash; its bytes are in quarantine/ until a peer's copy replaces them")
                : try await inspect(record, hash: hash)
            report.blobsChecked += 1
            report.bytesChecked += record.byteCount
            guard let (kind, detail) = finding else { continue }
            let broken = (attachmentsByHash[record.hash] ?? []).map {
                VerificationReport.Damage.BrokenAttachment(id: AttachmentID(rawValue: $0.id), noteID: NoteID(rawValue: $0.noteId), filename: $0.filename)
            }
            let keys = (keysByHash[record.hash] ?? []).map(\.key)
            report.damage.append(.init(kind: kind, hash: hash, detail: detail, brokenAttachments: broken, brokenImageKeys: keys))
        }
        report.damage = try await droppingCollectedGarbage(report.damage)

        let temporary = try await BlockingPool.run { [layout] in
            POSIXFile.names(in: layout.temporaryPath).count
        }
        let uploadPieces = try await catalog.read { db in try ResumableUploadRecord.partHashes(in: db) }
        report.unreferencedFiles = try await backend.countUnknown(known: Set(snapshot.blobs.map(\.hash)).union(uploadPieces))
        report.temporaryFiles = temporary
        return report
    }

    /// Re-hashes one blob where it is kept; `nil` when it is intact.
    func inspect(_ record: BlobRecord, hash: BlobHash) async throws -> (VerificationReport.Damage.Kind, String)? {
        try await backend.inspect(hash) { actual, size in
            if size != record.byteCount { return (.sizeMismatch, "catalog says \(record.byteCount) bytes, found \(size)") }
            if actual != hash { return (.hashMismatch, "bytes hash to \(actual)") }
            return nil
        }
    }

    /// Keeps only damage to blobs something still references (a concurrent `gc` may have
    /// removed an unreferenced blob while `verify` ran; that is not damage).
    private func droppingCollectedGarbage(_ damage: [VerificationReport.Damage]) async throws -> [VerificationReport.Damage] {
        guard !damage.isEmpty else { return damage }
        return try await catalog.read { db in
            try damage.filter { try BlobRecord.isReferenced($0.hash.rawValue, in: db) }
        }
    }

    /// Sets the statistics the catalog keeps, and each blob's count of the records that name it,
    /// to what a count of the records says: the repair of ``VerificationReport/miscountedFigures``.
    /// Reads the whole catalog. Changes no record.
    public func recountStatistics() async throws {
        try await catalog.recountTally()
    }
}
