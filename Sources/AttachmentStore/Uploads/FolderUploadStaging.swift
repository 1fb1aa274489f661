import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Uploads in the store folder's `uploads/` (``UploadFolder``): the home of a store served by one
/// server. The writer lock is the part file's `flock`, so a crashed writer releases it at once.
struct FolderUploadStaging: UploadStaging {
    let folder: UploadFolder

    func create(_ id: UploadID, description: UploadDescription) async throws {
        try await onFolder(folder) { folder in try folder.create(id, info: description) }
    }

    func progress(of id: UploadID) async throws -> UploadProgress? {
        try await onFolder(folder) { folder in
            guard let description = try folder.info(id) else { return nil }
            let part = try folder.part(id)
            return UploadProgress(description: description, offset: part?.size ?? description.length,
                                  lastActivity: part?.modified, finished: part == nil)
        }
    }

    func lock(_ id: UploadID, holder: UploadHolders.Holder?) async throws -> UploadLock {
        switch try await onFolder(folder, { folder in try folder.lockPartIfPresent(id) }) {
        case .locked(let fd): .locked(FolderUploadWriter(folder: folder, id: id, fd: fd))
        case .busy: .busy
        case .gone: .gone
        }
    }

    /// Only this process writes `uploads/` (another holds a lock only for the instant between a
    /// fork and an exec), so there is nobody to ask.
    func requestHandover(_ id: UploadID) async throws {}

    func removeFinished(_ id: UploadID) async throws {
        try await onFolder(folder) { folder in try folder.removeAll(id) }
    }

    func collectExpired(now: Date, dryRun: Bool) async throws -> (uploads: Int, bytes: Int64) {
        try await onFolder(folder) { folder in try folder.collectExpired(now: now, dryRun: dryRun) }
    }
}

/// The writer of an upload in `uploads/`: it holds the part's descriptor, and with it the lock.
struct FolderUploadWriter: UploadWriter {
    let folder: UploadFolder
    let id: UploadID
    let fd: Int32

    func offset() async throws -> Int64 {
        try await onFolder(folder) { [fd] _ in try POSIXFile.size(fd) }
    }

    func append<Bytes: AsyncSequence>(_ bytes: Bytes, at start: Int64, length: Int64, checksum: UploadChecksum?) async throws -> Int64
        where Bytes.Element: DataProtocol {
        let outcome = try await UploadBytesReceiver.receive(
            bytes, into: fd, at: start, room: length - start, declaredLength: length, checksum: checksum,
            durable: true, path: folder.partPath(id))
        if let failure = outcome.failure { throw failure }
        return outcome.kept
    }

    func assembled() async throws -> AssembledUpload {
        AssembledUpload(path: folder.partPath(id), discard: {})
    }

    func finish() async throws {
        try await onFolder(folder) { [id] folder in try folder.removePart(id) }
    }

    func remove() async throws {
        try await onFolder(folder) { [id] folder in try folder.removeAll(id) }
    }

    func release() async {
        close(fd)
    }
}

/// Runs blocking work on the uploads folder; a failed system call is a write failure there.
private func onFolder<T: Sendable>(_ folder: UploadFolder, _ body: @escaping @Sendable (UploadFolder) throws -> T) async throws -> T {
    try await BlockingPool.run {
        do {
            return try body(folder)
        } catch let error as SystemError {
            throw AttachmentStore.Error.writeFailed(path: folder.path, cause: .system(error))
        }
    }
}
