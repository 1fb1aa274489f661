import CatalogSQL
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The blob files of a store folder and its staging area: `blobs/sha256/ab/cd/<hash>`,
/// `tmp/`, and readers' copies in `cache/blobs/`. Where originals finally live is the
/// ``BlobBackend``'s business; this type stages incoming bytes (hashing them), installs
/// files, and knows the paths.
///
/// Bytes arrive through a ``BlobWriter`` in `tmp/` (same filesystem), are made durable, and
/// are installed by `rename` — the only way a file appears under `blobs/`. A blob file is
/// never modified after it is installed. The type holds no mutable state and is safe to use
/// from any thread; every method that touches the disk blocks.
struct StoreFolderBlobs: Sendable {
    /// The store directory.
    let root: String
    /// `<root>/blobs/sha256`.
    let blobsDirectory: String
    /// `<root>/tmp`.
    let temporaryDirectory: String
    /// Whether staged blobs are synced before their transaction (not when the catalog keeps the
    /// bytes: its commit makes them durable).
    let syncsStagedBlobs: Bool
    /// Whether staged blobs become files in `blobs/` (not when the catalog or an object store
    /// keeps the originals), so that a batch may make their folders while it copies.
    let installsFiles: Bool

    /// Bytes moved per read or write call.
    static let chunkSize = 1 << 20

    init(root: String, syncsStagedBlobs: Bool = true, installsFiles: Bool = true) {
        self.root = root
        self.syncsStagedBlobs = syncsStagedBlobs
        self.installsFiles = installsFiles
        self.blobsDirectory = root + "/blobs/sha256"
        self.temporaryDirectory = root + "/tmp"
    }

    /// Where the blob with `hash` lives (whether or not it is there).
    func path(for hash: BlobHash) -> String {
        let hex = hash.rawValue
        let first = hex.prefix(2), second = hex.dropFirst(2).prefix(2)
        return "\(blobsDirectory)/\(first)/\(second)/\(hex)"
    }

    /// Starts an ingest into a new temporary file. Blocks.
    func makeWriter() throws(AttachmentStore.Error) -> BlobWriter {
        try BlobWriter(temporaryDirectory: temporaryDirectory, storePath: root)
    }

    /// How an install placed a staged blob.
    enum Installation: Equatable {
        /// The file was renamed into `blobs/`.
        case installed
        /// An identical blob was already there; the staged copy is redundant.
        case alreadyPresent
    }

    /// Renames a staged blob into `blobs/` (synced, read-only) unless the same content is
    /// already there (or `replacingExisting`, whatever is there). With `syncingDirectory` false
    /// the rename is not yet durable: the caller flushes the filesystem before the catalog
    /// references the blob (``installFiles(_:)``). Blocks.
    func installFile(_ staged: StagedBlob, replacingExisting: Bool = false,
                     syncingDirectory: Bool = true) throws(AttachmentStore.Error) -> Installation {
        let destination = path(for: staged.hash)
        if !replacingExisting, isPresent(staged) { return .alreadyPresent }
        try staged.makeDurable()
        do throws(SystemError) {
            let directory = POSIXFile.parentFolder(of: destination)
            try POSIXFile.makeDirectories(directory, syncing: syncingDirectory)
            if let fd = staged.fileDescriptor { fchmod(fd, 0o400) }
            guard rename(staged.temporaryPath, destination) == 0 else { throw SystemError("rename") }
            if syncingDirectory { try POSIXFile.syncDirectory(directory) }
            return .installed
        } catch {
            throw AttachmentStore.Error.writeFailed(path: root, cause: .system(error))
        }
    }

    /// Installs a batch of staged blobs (each with whether to replace what is there), then makes
    /// every rename durable at once: one `syncfs` for the batch instead of one `fsync` per
    /// directory, or the directory's own `fsync` when only one file moved. Call
    /// ``makeDurable(_:)`` first. Blocks.
    func installFiles(_ batch: [(staged: StagedBlob, replacingExisting: Bool)]) throws(AttachmentStore.Error) -> [Installation] {
        guard batch.count > 1 else {
            return try batch.map { item throws(AttachmentStore.Error) in try installFile(item.staged, replacingExisting: item.replacingExisting) }
        }
        var installations: [Installation] = []
        for item in batch {
            installations.append(try installFile(item.staged, replacingExisting: item.replacingExisting, syncingDirectory: false))
        }
        guard installations.contains(.installed) else { return installations }
        do throws(SystemError) {
            try POSIXFile.syncFilesystem(containing: blobsDirectory)
        } catch {
            throw .writeFailed(path: root, cause: .system(error))
        }
        return installations
    }

    /// Makes the bytes of a batch of staged blobs durable with one flush of the store's
    /// filesystem (`syncfs`) instead of one `fsync` each; a blob whose content is already stored
    /// is skipped (its copy is dropped unsynced), and a batch with one blob left is `fsync`ed.
    /// Nothing to do when the catalog keeps the bytes (its commit makes them durable). Blocks.
    func makeDurable(_ batch: [StagedBlob]) throws(AttachmentStore.Error) {
        guard syncsStagedBlobs else { return }
        let pending = batch.filter { !isPresent($0) }
        guard pending.count > 1 else {
            try pending.first?.makeDurable()
            return
        }
        do throws(SystemError) {
            try POSIXFile.syncFilesystem(containing: temporaryDirectory)
        } catch {
            throw .writeFailed(path: root, cause: .system(error))
        }
        for staged in pending { staged.recordSyncedByFilesystemFlush() }
    }

    /// Where a catalog-placed or object-store blob is written out for readers that need a file
    /// (libvips, exports): `cache/blobs/ab/<hash>`, derived and safe to delete.
    func materializedPath(for hash: BlobHash) -> String {
        "\(root)/cache/blobs/\(hash.rawValue.prefix(2))/\(hash.rawValue)"
    }

    /// Whether the blob `staged` would become is already stored (same name, same size).
    func isPresent(_ staged: StagedBlob) -> Bool {
        guard let existing = try? POSIXFile.status(path(for: staged.hash)) else { return false }
        return Int64(existing.st_size) == staged.byteCount
    }

    /// Syncs a staged blob unless its content is already stored, so that the later install
    /// (inside the catalog transaction) rarely has to wait for a sync. Blocks.
    func prepare(_ staged: StagedBlob) throws(AttachmentStore.Error) {
        // An object-store ingest keeps its staged file as the local copy readers use: synced, so
        // a power loss cannot leave a cached original with holes.
        if syncsStagedBlobs && !isPresent(staged) { try staged.makeDurable() }
    }

    /// Deletes a blob file and its local copy. Call only inside a catalog write transaction that
    /// has just found the blob unreferenced, so that no ingest can reference it meanwhile. Blocks.
    func remove(_ hash: BlobHash) throws(AttachmentStore.Error) {
        do throws(SystemError) {
            try POSIXFile.remove(path(for: hash))
            try POSIXFile.remove(materializedPath(for: hash))
        } catch {
            throw .writeFailed(path: root, cause: .system(error))
        }
    }

    /// Stages the regular file at `path`, hashing it while copying, and syncs the copy when it
    /// will become a new blob (unless `syncing` is false: a batch syncs all its copies at once,
    /// ``makeDurable(_:)``). Blocks; checks `cancellation` between chunks.
    func stage(fileAt path: String, cancellation: CancellationFlag, syncing: Bool = true,
               progress: (@Sendable (Int64) -> Void)? = nil) throws -> StagedBlob {
        let source = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard source >= 0 else {
            let error = SystemError("open")
            if error.code == EISDIR { throw AttachmentStore.Error.sourceNotAFile(path: path) }
            throw AttachmentStore.Error.sourceUnreadable(path: path, cause: .system(error))
        }
        defer { close(source) }
        var info = stat()
        guard fstat(source, &info) == 0 else {
            throw AttachmentStore.Error.sourceUnreadable(path: path, cause: .system(SystemError("fstat")))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw AttachmentStore.Error.sourceNotAFile(path: path) }
        _ = fcntl(source, F_SETFL, fcntl(source, F_GETFL) & ~O_NONBLOCK)
        _ = posix_fadvise(source, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))

        let writer = try makeWriter()
        do {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
            defer { buffer.deallocate() }
            var copied: Int64 = 0
            while true {
                try cancellation.check()
                let count: Int
                do {
                    count = try POSIXFile.read(source, into: buffer)
                } catch {
                    throw AttachmentStore.Error.sourceUnreadable(path: path, cause: .system(error))
                }
                if count == 0 { break }
                try writer.append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                copied += Int64(count)
                progress?(copied)
            }
            if syncing { return try finishAndPrepare(writer) }
            // The batch flushes later; the disk starts on this copy now, unless it is a duplicate
            // whose copy will be dropped unwritten. Its folder in `blobs/` is made now too, in
            // parallel with the other copies (the batch's `syncfs` makes it durable), so the
            // install inside the catalog transaction, one blob after another, only renames.
            let staged = try writer.finish()
            if syncsStagedBlobs && !isPresent(staged) {
                staged.startWriteback()
                if installsFiles {
                    let destination = self.path(for: staged.hash)
                    do throws(SystemError) {
                        try POSIXFile.makeDirectories(POSIXFile.parentFolder(of: destination), syncing: false)
                    } catch {
                        staged.release()
                        throw AttachmentStore.Error.writeFailed(path: root, cause: .system(error))
                    }
                }
            }
            return staged
        } catch {
            writer.abort()
            throw error
        }
    }

    private func finishAndPrepare(_ writer: BlobWriter) throws(AttachmentStore.Error) -> StagedBlob {
        let staged = try writer.finish()
        do {
            try prepare(staged)
        } catch {
            staged.release()
            throw error
        }
        return staged
    }

    /// Stages bytes already in memory. Blocks.
    func stage(data: Data) throws -> StagedBlob {
        let writer = try makeWriter()
        do {
            try data.withUnsafeBytes { buffer in try writer.append(buffer) }
            return try finishAndPrepare(writer)
        } catch {
            writer.abort()
            throw error
        }
    }

    /// Stages an asynchronous sequence of byte chunks with bounded memory: chunks are
    /// gathered into about ``chunkSize`` bytes and written from ``BlockingPool``.
    /// If the sequence throws or the task is cancelled, nothing is kept.
    func stage<Bytes: AsyncSequence>(bytes: Bytes, syncing: Bool = true) async throws -> StagedBlob where Bytes.Element: DataProtocol {
        let writer = try await BlockingPool.run { try makeWriter() }
        do {
            for try await step in ChunkSteps(bytes, size: Self.chunkSize) {
                let full = step.bytes
                try await BlockingPool.run { try writer.append(full) }
            }
            try Task.checkCancellation()
            return try await BlockingPool.run { syncing ? try finishAndPrepare(writer) : try writer.finish() }
        } catch {
            writer.abort()
            throw error
        }
    }
}

/// A cancellation signal that blocking loops can poll from a pool thread.
final class CancellationFlag: Sendable {
    private let cancelled = Mutex(false)

    /// Marks the work cancelled.
    func cancel() { cancelled.withLock { $0 = true } }

    /// Throws `CancellationError` once ``cancel()`` was called.
    func check() throws {
        if cancelled.withLock({ $0 }) { throw CancellationError() }
    }

    /// Runs blocking `body` on ``BlockingPool``, cancelling the flag it is given when the
    /// calling task is cancelled.
    static func runCancellable<T: Sendable>(_ body: @escaping @Sendable (CancellationFlag) throws -> T) async throws -> T {
        let flag = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await BlockingPool.run { try body(flag) }
        } onCancel: {
            flag.cancel()
        }
    }
}
