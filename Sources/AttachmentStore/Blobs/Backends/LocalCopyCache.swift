import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// The local copies of originals kept elsewhere (in the catalog, in an object store), for the
/// readers that need a file (libvips, exports, the server): `cache/blobs/ab/<hash>`, derived
/// data, safe to delete, evicted least recently read first. The one place that names, fills
/// and drops such a copy, for both backends that keep one.
struct LocalCopyCache: Sendable {
    /// The store folder's blob files, whose `materializedPath(for:)` names a copy.
    let files: StoreFolderBlobs

    /// Where the copy of `hash` is (or would be).
    func path(for hash: BlobHash) -> String { files.materializedPath(for: hash) }

    /// The copy of `hash` when there is one, marked as just read (for the budget's order).
    func existingCopy(of hash: BlobHash) async throws -> String? {
        let path = path(for: hash)
        return try await BlockingPool.run { try LeastRecentlyRead.touchIfPresent(path) } ? path : nil
    }

    /// Makes the copy of `hash`: `write` fills a partial file of its own (a blocking call made
    /// on the blocking pool when it has to be), which becomes the copy by one rename, so no
    /// reader ever sees a half-written one. A failed fill leaves nothing behind; a partial file
    /// that cannot be removed is logged and stays (derived data).
    /// - Throws: ``AttachmentStore/Error/writeFailed(path:cause:)`` when the folder or the rename
    ///   fails; what `write` throws.
    func fill(_ hash: BlobHash, logger: Logger, write: (_ partial: String) async throws -> Void) async throws -> String {
        let path = path(for: hash)
        let folder = POSIXFile.parentFolder(of: path)
        let partial = path + ".part-" + UUID().uuidString.prefix(8)
        try await BlockingPool.run {
            do throws(SystemError) {
                try POSIXFile.makeDirectories(folder)
            } catch {
                throw AttachmentStore.Error.writeFailed(path: folder, cause: .system(error))
            }
        }
        do {
            try await write(partial)
            try await BlockingPool.run {
                guard rename(partial, path) == 0 else {
                    throw AttachmentStore.Error.writeFailed(path: path, cause: .system(SystemError("rename")))
                }
            }
            return path
        } catch {
            do {
                try await BlockingPool.run { try POSIXFile.remove(partial) }
            } catch let cleanup {
                logger.warning("a partial local copy stays in cache/ (derived data, safe to delete)",
                               metadata: ["path": "\(partial)", "error": "\(cleanup)"])
            }
            throw error
        }
    }

    /// Drops the copy of `hash`, if any. Blocks.
    func remove(_ hash: BlobHash) throws(SystemError) {
        try POSIXFile.remove(path(for: hash))
    }
}
