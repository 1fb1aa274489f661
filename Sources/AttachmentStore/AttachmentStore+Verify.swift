import Crypto
import Foundation
import CatalogSQL
#if canImport(Glibc)
import Glibc
#endif

extension AttachmentStore {
    /// Re-hashes every blob and checks every reference and the catalog itself.
    ///
    /// Reads only; changes nothing. Damage is reported with the attachments it breaks.
    /// Unreferenced files and temporary files are counted but are not damage (`gc` handles them).
    public func verify() async throws -> VerificationReport {
        struct Snapshot: Sendable {
            var blobs: [BlobRecord]
            var quarantined: [BlobRecord]
            var attachments: [AttachmentRecord]
            var imageEntries: [ImageEntryRecord]
            var problems: [String]
        }
        let problems = try await catalog.integrityProblems()
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
        report.attachmentsChecked = snapshot.attachments.count
        let attachmentsByHash = Dictionary(grouping: snapshot.attachments, by: \.blobHash)
        let keysByHash = Dictionary(grouping: snapshot.imageEntries, by: \.blobHash)

        let blobs = self.blobs
        let quarantined = Set(snapshot.quarantined.map(\.hash))
        for record in (snapshot.blobs + snapshot.quarantined).sorted(by: { $0.hash < $1.hash }) {
            try Task.checkCancellation()
            let hash = BlobHash(trusted: record.hash)
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

        let (unreferenced, temporary) = try await BlockingPool.run { [layout] in
            let known = Set(snapshot.blobs.map(\.hash))
            let files = BlobFileScan.files(in: blobs.blobsDirectory)
            let temporary = (try? FileManager.default.contentsOfDirectory(atPath: layout.temporaryPath))?.count ?? 0
            return (files.filter { !known.contains($0.hash.rawValue) }.count, temporary)
        }
        report.unreferencedFiles = unreferenced
        if let objectStore = blobs.objectStore {
            let known = Set(snapshot.blobs.map(\.hash))
            do {
                for try await object in objectStore.objects() where !known.contains(object.hash.rawValue) {
                    report.unreferencedFiles += 1
                }
            } catch {
                throw Self.objectStoreError(error, operation: "list the blobs", location: objectStore.location)
            }
        }
        report.temporaryFiles = temporary
        return report
    }

    /// Re-hashes one blob where it is kept; `nil` when it is intact.
    func inspect(_ record: BlobRecord, hash: BlobHash) async throws -> (VerificationReport.Damage.Kind, String)? {
        @Sendable func judge(_ actual: BlobHash, _ size: Int64) -> (VerificationReport.Damage.Kind, String)? {
            if size != record.byteCount { return (.sizeMismatch, "catalog says \(record.byteCount) bytes, found \(size)") }
            if actual != hash { return (.hashMismatch, "bytes hash to \(actual)") }
            return nil
        }
        if blobs.placement == .catalog {
            guard let bytes = try await catalog.read({ db in try BlobContentRecord.bytes(of: hash, in: db) }) else {
                return (.missing, "no bytes in the catalog")
            }
            return try await BlockingPool.run { judge(BlobHash(digest: SHA256.hash(data: bytes)), Int64(bytes.count)) }
        }
        if let objectStore = blobs.objectStore {
            return try await inspectObject(hash, in: objectStore, judge: judge)
        }
        let path = blobs.path(for: hash)
        return try await BlockingPool.run {
            guard (try? POSIXFile.status(path)) ?? nil != nil else { return (.missing, "no file at \(path)") }
            do {
                let (actual, size) = try BlobFileScan.hash(fileAt: path)
                return judge(actual, size)
            } catch {
                return (.unreadable, String(describing: error))
            }
        }
    }

    /// Downloads one object into `tmp/` and judges its bytes; the copy is removed afterwards.
    private func inspectObject(
        _ hash: BlobHash, in objectStore: any BlobObjectStore,
        judge: @escaping @Sendable (BlobHash, Int64) -> (VerificationReport.Damage.Kind, String)?
    ) async throws -> (VerificationReport.Damage.Kind, String)? {
        let name = "verify-" + UUID().uuidString.lowercased()
        let path = layout.temporaryPath + "/" + name
        // Locked for as long as it exists, so a concurrent gc leaves it alone.
        let lock = try await BlockingPool.run { [layout] () throws -> Int32 in
            do throws(SystemError) {
                return try POSIXFile.createLocked(named: name, in: layout.temporaryPath)
            } catch {
                throw Error.writeFailed(path: layout.root, reason: error.reason)
            }
        }
        let outcome: Result<(VerificationReport.Damage.Kind, String)?, any Swift.Error>
        do {
            outcome = .success(try await Self.downloadAndJudge(hash, from: objectStore, into: path, judge: judge))
        } catch {
            outcome = .failure(error)
        }
        // Removed before it is unlocked, so no gc ever finds it unlocked.
        do {
            try await BlockingPool.run {
                defer { close(lock) }
                try POSIXFile.remove(path)
            }
        } catch {
            configuration.logger.warning("verify's copy of an object stays in tmp/ until gc removes it",
                                         metadata: ["path": "\(path)", "error": "\(error)"])
        }
        return try outcome.get()
    }

    private static func downloadAndJudge(
        _ hash: BlobHash, from objectStore: any BlobObjectStore, into path: String,
        judge: @escaping @Sendable (BlobHash, Int64) -> (VerificationReport.Damage.Kind, String)?
    ) async throws -> (VerificationReport.Damage.Kind, String)? {
        do {
            try await objectStore.download(hash, toFile: path)
        } catch BlobObjectStoreError.missing {
            return (.missing, "no object in \(objectStore.location)")
        } catch let error as CancellationError {
            throw error
        } catch let error as BlobObjectStoreError {
            if case .corrupt(_, let reason) = error { return (.unreadable, reason) }
            throw AttachmentStore.Error.objectStore(error)
        }
        return try await BlockingPool.run {
            do {
                let (actual, size) = try BlobFileScan.hash(fileAt: path)
                return judge(actual, size)
            } catch {
                return (.unreadable, String(describing: error))
            }
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
}
