import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What became of an attempt to lock an upload's part.
enum PartLock: Sendable {
    /// Locked; the descriptor is open for writing.
    case locked(Int32)
    /// Another request or process holds the lock.
    case busy
    /// There is no part (the upload finished, was cancelled or collected).
    case gone
}

/// The files of resumable uploads, in the store's `uploads/` folder:
///
/// ```
/// uploads/<id>.part   the bytes received so far; its size is the upload's offset
/// uploads/<id>.json   what the upload is for (note, name, length, lifetime); written whole,
///                     by rename, before the upload is announced
/// ```
///
/// A `.part` file is locked (`flock`) by whoever writes it, from the moment it has its name,
/// as every temporary file of the store is — so `gc` in any process never removes a part
/// that is being written or finished. A finished upload keeps its `.json` (so a client that
/// asks again learns the attachment it became) until it expires. Every call blocks.
struct UploadFolder: Sendable {
    let path: String

    func partPath(_ id: UploadID) -> String { path + "/" + id.rawValue + ".part" }
    func infoPath(_ id: UploadID) -> String { path + "/" + id.rawValue + ".json" }

    /// Creates the upload's empty part and its description.
    func create(_ id: UploadID, info: UploadDescription) throws(SystemError) {
        try POSIXFile.makeDirectories(path)
        let fd = try POSIXFile.createLocked(named: id.rawValue + ".part", in: path)
        defer { close(fd) }
        try writeInfo(id, info)
    }

    /// Replaces `<id>.json` whole (write, sync, rename, sync the folder).
    func writeInfo(_ id: UploadID, _ info: UploadDescription) throws(SystemError) {
        let data = try info.encoded()
        let final = infoPath(id)
        let staging = final + Self.stagingSuffix
        let fd = open(staging, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError("create \(staging)") }
        do throws(SystemError) {
            try POSIXFile.writeAll(fd, Array(data), at: 0)
            try POSIXFile.sync(fd)
            close(fd)
        } catch {
            close(fd)
            // The failure is what the caller must hear; a leftover staging file is gc's.
            unlink(staging)
            throw error
        }
        guard rename(staging, final) == 0 else { throw SystemError("rename \(staging)") }
        try POSIXFile.syncDirectory(path)
    }

    /// The upload's description, or `nil` when there is none.
    func info(_ id: UploadID) throws(SystemError) -> UploadDescription? {
        let path = infoPath(id)
        guard let data = FileManager.default.contents(atPath: path) else {
            guard try POSIXFile.status(path) == nil else { throw SystemError("read \(path)", code: EIO) }
            return nil
        }
        return try UploadDescription.decode(data, source: path)
    }

    /// The part's size and last change, or `nil` once the upload was finished (or never got one).
    func part(_ id: UploadID) throws(SystemError) -> (size: Int64, modified: Date)? {
        try POSIXFile.status(partPath(id)).map { (Int64($0.st_size), BlobFileScan.modificationDate($0)) }
    }

    /// Opens the part for writing under its exclusive lock. The caller closes the descriptor of
    /// a `.locked` part, which releases the lock.
    func lockPartIfPresent(_ id: UploadID) throws(SystemError) -> PartLock {
        let path = partPath(id)
        let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            if errno == ENOENT { return .gone }
            throw SystemError("open \(path)")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return .busy
        }
        // Removed (finished, cancelled, collected) between the open and the lock: not ours.
        guard POSIXFile.isStillNamed(fd, path) else {
            close(fd)
            return .gone
        }
        return .locked(fd)
    }

    /// Removes the part (the caller holds its lock) and syncs the folder.
    func removePart(_ id: UploadID) throws(SystemError) {
        try POSIXFile.remove(partPath(id))
        try POSIXFile.syncDirectory(path)
    }

    /// Removes both files of an upload (the caller holds the part's lock, or it has none).
    func removeAll(_ id: UploadID) throws(SystemError) {
        try POSIXFile.remove(partPath(id))
        try POSIXFile.remove(infoPath(id))
        try POSIXFile.syncDirectory(path)
    }

    /// Removes uploads past their expiry (finished ones included: their description only
    /// remembers the attachment), and leftovers of a crash during creation (a part without a
    /// description, a description half-written) once a minute old — never a part someone holds
    /// locked. Returns how many uploads went and their bytes.
    func collectExpired(now: Date, dryRun: Bool) throws(SystemError) -> (uploads: Int, bytes: Int64) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return (0, 0) }
        let leftoverCutoff = now.addingTimeInterval(-AttachmentStore.creatingTemporaryFileGrace)
        var (uploads, bytes) = (0, Int64(0))
        for name in names {
            let file = path + "/" + name
            guard let status = try POSIXFile.status(file), (status.st_mode & S_IFMT) == S_IFREG else { continue }
            let modified = BlobFileScan.modificationDate(status)
            if name.hasSuffix(".json"), let id = UploadID(rawValue: String(name.dropLast(5))) {
                let info = try? self.info(id)
                let part = try self.part(id)
                let lastActivity = max(info?.createdAt ?? modified, part?.modified ?? .distantPast)
                guard lastActivity.addingTimeInterval(info?.lifetimeSeconds ?? 0) < now else { continue }
                let lock = try lockPartIfPresent(id)
                if case .busy = lock { continue }
                if !dryRun { try removeAll(id) }
                if case .locked(let fd) = lock { close(fd) }
                uploads += 1
                bytes += part?.size ?? 0
            } else if name.hasSuffix(".part"), let id = UploadID(rawValue: String(name.dropLast(5))) {
                // A part with its description is the description's business.
                guard try POSIXFile.status(infoPath(id)) == nil, modified < leftoverCutoff else { continue }
                let lock = try lockPartIfPresent(id)
                guard case .locked(let fd) = lock else { continue }
                defer { close(fd) }
                guard try POSIXFile.status(infoPath(id)) == nil else { continue }
                if !dryRun { try removePart(id) }
                uploads += 1
                bytes += Int64(status.st_size)
            } else if name.hasSuffix(Self.stagingSuffix) || name.hasSuffix(POSIXFile.unlockedCreationSuffix), modified < leftoverCutoff {
                if !dryRun { try POSIXFile.remove(file) }
            }
        }
        return (uploads, bytes)
    }

    /// The suffix of an upload description being written.
    static let stagingSuffix = ".new"
}
