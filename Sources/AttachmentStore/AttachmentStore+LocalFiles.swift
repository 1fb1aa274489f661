import Foundation
import CatalogSQL
#if canImport(Glibc)
import Glibc
#endif

extension AttachmentStore {
    /// A file holding the bytes of `hash`, for readers that need a path (libvips, exports,
    /// streaming). For file placement that is the blob itself; for catalog placement the bytes
    /// are written out once into `cache/blobs/` (derived data) and reused.
    /// - Throws: ``Error/blobMissing(_:)`` when the store does not have the bytes.
    /// For object-store placement the object is downloaded (and checked against its hash) into
    /// `cache/blobs/` the first time.
    func localPath(for hash: BlobHash) async throws -> String {
        if blobs.placement == .files {
            let path = blobs.path(for: hash)
            // A read is what keeps an original from eviction under the storage budget.
            try await BlockingPool.run { LeastRecentlyRead.touch(path) }
            return path
        }
        let path = blobs.materializedPath(for: hash)
        if try await BlockingPool.run({ () throws -> Bool in
            guard try POSIXFile.status(path) != nil else { return false }
            LeastRecentlyRead.touch(path)
            return true
        }) { return path }
        if blobs.placement == .objectStore { return try await downloadFromObjectStore(hash, to: path) }
        guard let bytes = try await catalog.read({ db in try BlobContentRecord.bytes(of: hash, in: db) }) else {
            throw Error.blobMissing(hash)
        }
        try await BlockingPool.run {
            let folder = String(path[..<path.lastIndex(of: "/")!])
            do throws(SystemError) {
                try POSIXFile.makeDirectories(folder)
            } catch {
                throw Error.writeFailed(path: folder, reason: error.reason)
            }
            let partial = path + ".part-\(UUID().uuidString.prefix(8))"
            guard FileManager.default.createFile(atPath: partial, contents: bytes), rename(partial, path) == 0 else {
                unlink(partial)
                throw Error.writeFailed(path: path, reason: String(cString: strerror(errno)))
            }
        }
        return path
    }
}
