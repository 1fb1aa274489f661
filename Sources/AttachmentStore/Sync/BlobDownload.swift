import Crypto
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The bytes of a remote blob arriving from a peer, into `tmp/fetch-<hash>.part`.
///
/// A transfer that is cut leaves its partial file; the next download of the same blob
/// resumes after ``resumeOffset`` (ask the peer for `Range: bytes=<offset>-`). Nothing
/// counts until ``finish()`` has hashed the whole file and found the expected hash: a wrong
/// byte from any peer is thrown away, never stored. The partial file is locked while a
/// download holds it, so `gc` leaves it alone (and removes it after the grace period once
/// it is abandoned). Safe to use from one task at a time; appends run off the cooperative pool.
public final class BlobDownload: Sendable {
    /// The blob being received.
    public let hash: BlobHash
    /// Its size, from the attachment record.
    public let expectedSize: Int64
    /// Bytes already received by an earlier, cut transfer.
    public let resumeOffset: Int64

    private let store: AttachmentStore
    private let path: String
    private let descriptor: Mutex<Int32?>
    private let received: Mutex<Int64>

    init(store: AttachmentStore, hash: BlobHash, expectedSize: Int64) throws {
        self.store = store
        self.hash = hash
        self.expectedSize = expectedSize
        self.path = store.layout.temporaryPath + "/" + Self.partialName(of: hash)
        let fd = try Self.openPartial(path, in: store.layout.temporaryPath, name: Self.partialName(of: hash))
        var info = stat()
        fstat(fd, &info)
        var offset = Int64(info.st_size)
        if offset > expectedSize {
            // More bytes than the blob has: the partial is wrong; start again.
            ftruncate(fd, 0)
            offset = 0
        }
        self.resumeOffset = offset
        self.descriptor = Mutex(fd)
        self.received = Mutex(offset)
    }

    deinit { close() }

    /// The name of the partial file of `hash` in the store's `tmp/`.
    static func partialName(of hash: BlobHash) -> String { "fetch-\(hash.rawValue).part" }

    /// The size of the partial file at `path` while a download holds it (its lock is taken),
    /// or `nil` when there is none or it is a cut transfer's leftover. Blocks briefly.
    static func bytesHeld(at path: String) -> Int64? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        // Free to lock: nobody holds it. (Our shared lock goes with the descriptor.)
        guard flock(fd, LOCK_SH | LOCK_NB) != 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// Opens and locks the partial file of an earlier, cut transfer, or creates it locked.
    private static func openPartial(_ path: String, in directory: String, name: String) throws -> Int32 {
        for _ in 0..<5 {
            let existing = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
            if existing >= 0 {
                guard flock(existing, LOCK_EX | LOCK_NB) == 0 else {
                    // Held: by another download (for long), or by `gc` looking at it (for a
                    // moment, after which it is usually gone). Look again shortly.
                    Glibc.close(existing)
                    usleep(20_000)
                    continue
                }
                // `gc` in another process may have removed the file between the open and the
                // lock; a lock on a file no longer at `path` protects nothing, so it is kept
                // only while `path` still names it (else start again, with a new file).
                if POSIXFile.isStillNamed(existing, path) { return existing }
                Glibc.close(existing)
                continue
            }
            guard errno == ENOENT else { throw AttachmentStore.Error.writeFailed(path: path, cause: .system(SystemError("open"))) }
            do throws(SystemError) {
                // New and empty, so writing at its end needs no O_APPEND.
                return try POSIXFile.createLocked(named: name, in: directory)
            } catch where error.code == EEXIST {
                continue  // another process created it meanwhile: open theirs
            } catch {
                throw AttachmentStore.Error.writeFailed(path: path, cause: .system(error))
            }
        }
        throw AttachmentStore.Error.writeFailed(path: path, cause: .condition("another download of this blob is in progress"))
    }

    /// Bytes received so far, the resumed part included.
    public var receivedBytes: Int64 { received.withLock { $0 } }

    /// Appends bytes that follow what was received.
    /// - Throws: ``AttachmentStore/Error/writeFailed(path:cause:)``, or
    ///   ``AttachmentStore/Error/invalidArgument(_:)`` when the peer sends more than the blob has.
    public func append<Bytes: DataProtocol & Sendable>(_ bytes: Bytes) async throws {
        let (path, expected) = (self.path, expectedSize)
        try await BlockingPool.run { [self] in
            let total = received.withLock { $0 } + Int64(bytes.count)
            guard total <= expected else {
                throw AttachmentStore.Error.invalidArgument("the peer sent \(total) bytes for a blob of \(expected)")
            }
            try descriptor.withLock { fd in
                guard let fd else { throw AttachmentStore.Error.writeFailed(path: path, cause: .condition("download closed")) }
                let contiguous = [UInt8](bytes)
                do {
                    try contiguous.withUnsafeBytes { try POSIXFile.writeAll(fd, $0) }
                } catch let error as SystemError {
                    throw AttachmentStore.Error.writeFailed(path: path, cause: .system(error))
                }
            }
            received.withLock { $0 = total }
        }
    }

    /// Hashes the whole file and, when it is the expected blob, stores it and marks it present;
    /// every attachment of the blob then takes the media type sniffed from the bytes, whatever
    /// the peer's record claimed.
    /// - Throws: ``AttachmentStore/Error/hashMismatch(expected:actual:)`` (the partial file is
    ///   deleted: the next attempt starts from zero), or write errors.
    public func finish() async throws {
        let (path, hash, expected) = (self.path, self.hash, expectedSize)
        let staged: StagedBlob = try await BlockingPool.run { [self] in
            let (actual, size) = try BlobFileScan.hash(fileAt: path)
            guard size >= expected else {
                // A cut transfer, not a wrong one: keep the bytes for a resume.
                throw AttachmentStore.Error.invalidArgument("only \(size) of \(expected) bytes of blob \(hash) have arrived")
            }
            guard actual == hash, size == expected else {
                unlink(path)
                close()
                throw AttachmentStore.Error.hashMismatch(expected: hash, actual: actual)
            }
            let fd = descriptor.withLock { fd -> Int32? in
                defer { fd = nil }
                return fd
            }
            guard let fd else { throw AttachmentStore.Error.writeFailed(path: path, cause: .condition("download closed")) }
            // Only the first bytes, for sniffing: a blob of any size is never read whole.
            let head = try Self.head(of: path, byteCount: size)
            return StagedBlob(temporaryPath: path, descriptor: fd, storePath: store.layout.root, hash: hash, byteCount: size, head: head)
        }
        try await store.installDownloaded(staged)
    }

    /// The first ``BlobWriter/headLength`` bytes of the file at `path` (the partial is open
    /// for appending only, so it is read through a descriptor of its own).
    private static func head(of path: String, byteCount: Int64) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw AttachmentStore.Error.writeFailed(path: path, cause: .system(SystemError("open"))) }
        defer { Glibc.close(fd) }
        var head = [UInt8](repeating: 0, count: Int(min(Int64(BlobWriter.headLength), byteCount)))
        let read = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard read >= 0 else { throw AttachmentStore.Error.writeFailed(path: path, cause: .system(SystemError("pread"))) }
        head.removeLast(head.count - read)
        return head
    }

    /// Closes the partial file, keeping it for a later resume. Idempotent.
    public func close() {
        descriptor.withLock { fd in
            if let open = fd { Glibc.close(open) }
            fd = nil
        }
    }
}
