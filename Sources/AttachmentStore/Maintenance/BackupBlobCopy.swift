#if canImport(Glibc)
import Glibc
#endif

/// Puts one original into a backup's `blobs/`: left alone when an earlier backup already holds
/// it, hard-linked from the store when both are on one filesystem, else copied through the
/// backup's `tmp/` (synced, read-only) and renamed into place. A file appears under the
/// backup's `blobs/` only whole. Every function blocks.
enum BackupBlobCopy {
    /// How an original reached the backup.
    enum Outcome: Equatable {
        /// An earlier backup holds it (same name, same size).
        case reused
        /// Hard-linked from the store: no bytes written.
        case linked
        /// Copied byte for byte.
        case copied
        /// The store's file is gone (`gc` removed it after the snapshot was taken).
        case sourceMissing
    }

    /// Places the original `hash` (`byteCount` bytes), read from `source`, in `backup`.
    static func place(_ hash: BlobHash, byteCount: Int64, from source: String, into backup: StoreFolderBlobs) throws(SystemError) -> Outcome {
        let destination = backup.path(for: hash)
        if let existing = try POSIXFile.status(destination) {
            if Int64(existing.st_size) == byteCount { return .reused }
            try POSIXFile.remove(destination)
        }
        let directory = POSIXFile.parentFolder(of: destination)
        try POSIXFile.makeDirectories(directory)
        if link(source, destination) == 0 {
            try POSIXFile.syncDirectory(directory)
            return .linked
        }
        switch errno {
        case ENOENT: return .sourceMissing
        case EXDEV, EPERM, EMLINK, ENOTSUP: break
        default: throw SystemError("link \(source) to \(destination)")
        }
        let input = LeastRecentlyRead.openWithoutRecordingRead(source, flags: O_CLOEXEC | O_NOFOLLOW)
        guard input >= 0 else {
            if errno == ENOENT { return .sourceMissing }
            throw SystemError("open \(source)")
        }
        defer { close(input) }
        try install(into: backup, as: destination) { output throws(SystemError) in try POSIXFile.copyAll(from: input, to: output) }
        return .copied
    }

    /// A new file in the backup's `tmp/` that `write` fills through a descriptor; then it is
    /// synced, made read-only and renamed to `destination`. Removed when anything fails.
    static func install(into backup: StoreFolderBlobs, as destination: String, _ write: (Int32) throws(SystemError) -> Void) throws(SystemError) {
        let temporary = backup.temporaryDirectory + "/backup-" + String(destination.split(separator: "/").last ?? "blob")
        let output = open(temporary, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw SystemError("create \(temporary)") }
        do throws(SystemError) {
            defer { close(output) }
            try write(output)
            try POSIXFile.sync(output)
            fchmod(output, 0o400)
        } catch {
            unlink(temporary)
            throw error
        }
        try moveIntoPlace(temporary, destination)
    }

    /// Renames a finished file in the backup's `tmp/` to `destination` and syncs its folder.
    static func moveIntoPlace(_ temporary: String, _ destination: String) throws(SystemError) {
        let directory = POSIXFile.parentFolder(of: destination)
        try POSIXFile.makeDirectories(directory)
        guard rename(temporary, destination) == 0 else {
            let failure = SystemError("rename \(temporary) to \(destination)")
            unlink(temporary)
            throw failure
        }
        try POSIXFile.syncDirectory(directory)
    }
}
