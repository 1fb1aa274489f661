import Foundation

/// Where a store keeps its parts, and how to tell a store directory from anything else.
///
/// ```
/// <root>/catalog.sqlite            the catalog (WAL mode)
/// <root>/blobs/sha256/ab/cd/<hash> originals, read-only once written
/// <root>/tmp/                      in-flight ingests (same filesystem, for rename)
/// <root>/cache/                    derived data, safe to delete at any time
/// <root>/quarantine/<hash>         originals that failed a re-hash, kept for inspection until repaired
/// <root>/uploads/<id>.part|.json    resumable uploads: the bytes so far, and what they are for
/// ```
struct StoreLayout: Sendable {
    let root: String

    /// The layout of the store at `directory` (made absolute, without a trailing slash).
    init(directory: URL) {
        var path = directory.standardizedFileURL.path(percentEncoded: false)
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        root = path
    }

    var catalogPath: String { root + "/catalog.sqlite" }
    var blobsPath: String { root + "/blobs" }
    var temporaryPath: String { root + "/tmp" }
    var cachePath: String { root + "/cache" }
    /// Blobs that failed a re-hash, moved out of `blobs/` so they are never served.
    var quarantinePath: String { root + "/quarantine" }
    /// Resumable uploads in progress (``UploadFolder``).
    var uploadsPath: String { root + "/uploads" }

    /// Checks that `root` is a store. Blocks.
    func validateExisting() throws(AttachmentStore.Error) {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: root, isDirectory: &isDirectory) else { throw .storeNotFound(path: root) }
        guard isDirectory.boolValue else { throw .notAStore(path: root, reason: "it is a file, not a directory") }
        guard manager.fileExists(atPath: catalogPath) else {
            throw .notAStore(path: root, reason: "it has no catalog.sqlite")
        }
        guard manager.fileExists(atPath: blobsPath), manager.fileExists(atPath: temporaryPath) else {
            throw .notAStore(path: root, reason: "its blobs/ or tmp/ folder is missing")
        }
    }

    /// Creates the folders a store whose catalog lives elsewhere (PostgreSQL) needs here —
    /// `blobs/`, `tmp/`, `cache/` — when missing. Blocks.
    func createWorkingFolder() throws(AttachmentStore.Error) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw .notAStore(path: root, reason: "it is a file, not a directory")
        }
        do throws(SystemError) {
            for path in [root, blobsPath, temporaryPath] {
                try POSIXFile.makeDirectories(path)
            }
        } catch {
            throw .writeFailed(path: root, cause: .system(error))
        }
    }

    /// Creates the folders of a new store in a missing or empty directory; leaves an existing
    /// store alone. Blocks.
    func createIfNeeded() throws(AttachmentStore.Error) {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: root, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw .notAStore(path: root, reason: "it is a file, not a directory") }
            if manager.fileExists(atPath: catalogPath) { return try validateExisting() }
            let entries = (try? manager.contentsOfDirectory(atPath: root)) ?? []
            guard entries.isEmpty else {
                throw .notAStore(path: root, reason: "the directory is not empty; choose an empty or new one")
            }
            // An empty folder becomes a store: its owner's alone, like one the store creates.
            guard chmod(root, 0o700) == 0 else { throw .writeFailed(path: root, cause: .system(SystemError("chmod \(root)"))) }
        }
        do throws(SystemError) {
            for path in [root, blobsPath, temporaryPath] {
                try POSIXFile.makeDirectories(path)
            }
        } catch {
            throw .writeFailed(path: root, cause: .system(error))
        }
    }
}
