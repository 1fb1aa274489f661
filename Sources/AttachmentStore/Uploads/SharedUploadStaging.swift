import CatalogSQL
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Uploads of a store whose originals live in an object store, kept where every server of the
/// store finds them: the description and the writer lease in the catalog
/// (``ResumableUploadRecord``), the bytes in the object store, one object per request's piece,
/// named by its hash like any blob. An upload begun on one server continues on any other.
///
/// A piece is received into a locked file in `tmp/`, uploaded under a blob claim
/// (``BlobLease``, so no `gc` deletes it meanwhile), and counts once the transaction that
/// lists it commits — which it does only while this writer still holds the lease and the upload
/// still ends where the piece begins. `gc` keeps every object a live upload lists; once the
/// upload finishes or expires, its pieces are objects nothing references, which `gc` removes
/// after its grace period.
struct SharedUploadStaging: UploadStaging {
    /// How long a writer's lease lasts without renewal: a server that dies while receiving keeps
    /// an upload busy this long at most. The writer renews it every quarter of it.
    static let writerLease: TimeInterval = 60

    let catalog: Catalog
    let backend: any UploadingBlobBackend
    let objectStore: any BlobObjectStore
    let layout: StoreLayout
    let logger: Logger

    func create(_ id: UploadID, description: UploadDescription) async throws {
        let json = String(decoding: try description.encoded(), as: UTF8.self)
        try await catalog.write(locking: [.upload(id)]) { db in try ResumableUploadRecord.insert(id, description, json: json, in: db) }
    }

    func progress(of id: UploadID) async throws -> UploadProgress? {
        try await catalog.read { db in try ResumableUploadRecord.find(id, in: db) }
    }

    func lock(_ id: UploadID, holder: UploadHolders.Holder?) async throws -> UploadLock {
        let writer = UUID().uuidString.lowercased()
        let now = Date()
        let lease = try await catalog.write(locking: [.upload(id)]) { db in
            try ResumableUploadRecord.takeWriter(id, writer: writer, until: now.addingTimeInterval(Self.writerLease), now: now, in: db)
        }
        switch lease {
        case .busy: return .busy
        case .gone: return .gone
        case .taken:
            guard let progress = try await progress(of: id) else { return .gone }
            return .locked(SharedUploadWriter(staging: self, id: id, writer: writer, description: progress.description,
                                              watch: watch(id, writer: writer, holder: holder)))
        }
    }

    func requestHandover(_ id: UploadID) async throws {
        try await catalog.write(locking: [.upload(id)]) { db in try ResumableUploadRecord.requestHandover(id, now: Date(), in: db) }
    }

    func removeFinished(_ id: UploadID) async throws {
        try await catalog.write(locking: [.upload(id)]) { db in try ResumableUploadRecord.delete(id, in: db) }
    }

    /// Expired uploads in the catalog, and in `uploads/` those begun before the store's uploads
    /// moved there.
    func collectExpired(now: Date, dryRun: Bool) async throws -> (uploads: Int, bytes: Int64) {
        let shared = try await catalog.write { db in try ResumableUploadRecord.deleteExpired(now: now, dryRun: dryRun, in: db) }
        let local = try await FolderUploadStaging(folder: UploadFolder(path: layout.uploadsPath)).collectExpired(now: now, dryRun: dryRun)
        return (shared.uploads + local.uploads, shared.bytes + local.bytes)
    }

    /// How often a writer whose bytes stopped arriving looks for a handover request.
    static let handoverPoll: Duration = .milliseconds(200)

    /// A task that renews `writer`'s lease until it is cancelled or the lease is lost, and — while
    /// `holder` receives nothing — stops it when a request on any server asked for a handover.
    private func watch(_ id: UploadID, writer: String, holder: UploadHolders.Holder?) -> Task<Void, Never> {
        Task { [catalog, logger] in
            let clock = ContinuousClock()
            let renewEvery = Duration.seconds(Self.writerLease / 4)
            var renewAt = clock.now + renewEvery
            while true {
                do {
                    try await Task.sleep(for: holder == nil ? renewEvery : Self.handoverPoll)
                    if let holder, holder.isIdle,
                       try await catalog.read({ db in try ResumableUploadRecord.handoverRequested(id, writer: writer, in: db) }) {
                        holder.stopIfIdle()
                    }
                    guard clock.now >= renewAt else { continue }
                    renewAt = clock.now + renewEvery
                    let held = try await catalog.write(locking: [.upload(id)]) { db in
                        try ResumableUploadRecord.renewWriter(id, writer: writer, until: Date().addingTimeInterval(Self.writerLease), in: db)
                    }
                    guard held else { return }
                } catch is CancellationError {
                    return
                } catch {
                    logger.warning("an upload's writer lease could not be renewed or checked; trying again",
                                   metadata: ["upload": "\(id)", "error": "\(error)"])
                }
            }
        }
    }

    /// Runs blocking work in `tmp/`; a failed system call is a write failure there.
    func onTemporaryFolder<T: Sendable>(_ body: @escaping @Sendable (String) throws -> T) async throws -> T {
        let folder = layout.temporaryPath
        return try await BlockingPool.run {
            do {
                return try body(folder)
            } catch let error as SystemError {
                throw AttachmentStore.Error.writeFailed(path: folder, cause: .system(error))
            }
        }
    }
}

/// The writer of a shared upload: it holds the catalog's lease, renewed (and watched for a
/// handover request) by a task of its own.
struct SharedUploadWriter: UploadWriter {
    let staging: SharedUploadStaging
    let id: UploadID
    let writer: String
    let description: UploadDescription
    let watch: Task<Void, Never>
    private var catalog: Catalog { staging.catalog }

    func offset() async throws -> Int64 {
        try await catalog.read { [id] db in try ResumableUploadRecord.heldBytes(id, in: db) }
    }

    func append<Bytes: AsyncSequence>(_ bytes: Bytes, at start: Int64, length: Int64, checksum: UploadChecksum?) async throws -> Int64
        where Bytes.Element: DataProtocol {
        let name = "upload-\(id)-\(UUID().uuidString.lowercased())"
        let fd = try await staging.onTemporaryFolder { folder in try POSIXFile.createLocked(named: name, in: folder) }
        let path = staging.layout.temporaryPath + "/" + name
        let outcome: UploadBytesReceiver.Outcome
        do {
            outcome = try await UploadBytesReceiver.receive(
                bytes, into: fd, at: 0, room: length - start, declaredLength: length, checksum: checksum, durable: false, path: path)
        } catch {
            await Self.drop(path, fd)
            throw error
        }
        if let hash = outcome.hash {
            let piece = StagedBlob(temporaryPath: path, descriptor: fd, storePath: staging.layout.root, hash: hash,
                                   byteCount: outcome.kept, head: [])
            let committed: Result<Void, any Swift.Error>
            do {
                committed = .success(try await commit(piece, at: start))
            } catch {
                committed = .failure(error)
            }
            await BlockingPool.runCleanup { piece.release() }
            try committed.get()
        } else {
            await Self.drop(path, fd)
        }
        if let failure = outcome.failure { throw failure }
        return outcome.kept
    }

    /// Uploads a received piece and lists it after the pieces before it, while this writer still
    /// holds the lease and the upload still ends at `start`.
    private func commit(_ piece: StagedBlob, at start: Int64) async throws {
        guard let claim = try await staging.backend.claimAndUpload(piece) else { return }
        let part = ResumableUploadRecord.Part(startsAt: start, byteCount: piece.byteCount, hash: piece.hash)
        do {
            try await catalog.write(locking: [.upload(id), .blob(piece.hash)]) { [id, writer, description] db in
                guard try ResumableUploadRecord.isWriter(id, writer: writer, in: db) else {
                    throw AttachmentStore.Error.upload(.busy(id))
                }
                let held = try ResumableUploadRecord.heldBytes(id, in: db)
                guard held == start else { throw AttachmentStore.Error.upload(.offsetMismatch(expected: held, given: start)) }
                try ResumableUploadRecord.addPart(part, to: id, description: description, now: Date(), in: db)
                try BlobLease.release(part.hash, holder: claim.holder, in: db)
            }
        } catch {
            await staging.backend.abandon(claim, of: part.hash)
            throw error
        }
    }

    /// Downloads the pieces, each checked against its hash, into one file in `tmp/`.
    func assembled() async throws -> AssembledUpload {
        let parts = try await catalog.read { [id] db in try ResumableUploadRecord.parts(id, in: db) }
        var end: Int64 = 0
        for part in parts {
            guard part.startsAt == end else { throw AttachmentStore.Error.upload(.offsetMismatch(expected: end, given: part.startsAt)) }
            end += part.byteCount
        }
        guard end == description.length else { throw AttachmentStore.Error.upload(.offsetMismatch(expected: end, given: description.length)) }
        let name = "upload-\(id)-whole-\(UUID().uuidString.lowercased())"
        let fd = try await staging.onTemporaryFolder { folder in try POSIXFile.createLocked(named: name, in: folder) }
        let path = staging.layout.temporaryPath + "/" + name
        do {
            for part in parts { try await append(part, to: fd) }
        } catch {
            await Self.drop(path, fd)
            throw error
        }
        return AssembledUpload(path: path, discard: { await Self.drop(path, fd) })
    }

    /// Downloads one piece beside the whole file, checks it, and appends it there.
    private func append(_ part: ResumableUploadRecord.Part, to whole: Int32) async throws {
        let piece = staging.layout.temporaryPath + "/upload-\(id)-piece-\(UUID().uuidString.lowercased())"
        let location = staging.objectStore.location
        do {
            try await staging.objectStore.download(part.hash, toFile: piece)
        } catch {
            throw ObjectStoreBlobBackend.storeError(error, operation: "download a piece of upload \(id)", location: location)
        }
        try await staging.onTemporaryFolder { [id] _ in
            defer { unlink(piece) }
            let (hash, size) = try BlobFileScan.hash(fileAt: piece)
            guard hash == part.hash, size == part.byteCount else {
                throw AttachmentStore.Error.objectStore(.corrupt(part.hash, reason: "a piece of upload \(id) holds \(size) bytes hashing to \(hash)"))
            }
            let input = open(piece, O_RDONLY | O_CLOEXEC)
            guard input >= 0 else { throw SystemError("open \(piece)") }
            defer { close(input) }
            try POSIXFile.copyAll(from: input, to: whole)
        }
    }

    func finish() async throws {
        watch.cancel()
        try await catalog.write(locking: [.upload(id)]) { [id] db in try ResumableUploadRecord.markFinished(id, now: Date(), in: db) }
    }

    func remove() async throws {
        watch.cancel()
        try await catalog.write(locking: [.upload(id)]) { [id] db in try ResumableUploadRecord.delete(id, in: db) }
    }

    func release() async {
        watch.cancel()
        do {
            try await catalog.write(locking: [.upload(id)]) { [id, writer] db in try ResumableUploadRecord.releaseWriter(id, writer: writer, in: db) }
        } catch {
            staging.logger.warning("an upload's writer lease could not be released; it runs out on its own",
                                   metadata: ["upload": "\(id)", "error": "\(error)"])
        }
    }

    /// Removes a file of ours in `tmp/` and closes it (which drops its lock).
    private static func drop(_ path: String, _ fd: Int32) async {
        await BlockingPool.runCleanup {
            unlink(path)
            close(fd)
        }
    }
}
