import Foundation
import Imaging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The bytes of a remote blob arriving from a peer, into `tmp/fetch-<hash>.part`.
///
/// A transfer that is cut leaves its partial file; the next download of the same blob
/// resumes after ``resumeOffset`` (ask the peer for `Range: bytes=<offset>-`). Nothing
/// counts until ``finish()`` has found the expected hash: a wrong byte from any peer is
/// thrown away, never stored. The bytes are hashed as they are written (a resumed partial's
/// bytes once, when the download opens), so finishing reads nothing back. The partial file
/// is locked while a download holds it, so `gc` leaves it alone (and removes it after the
/// grace period once it is abandoned). Safe to use from one task at a time; appends run off
/// the cooperative pool. The store admitted it against its ``PartialDownloadLimits`` before
/// it opened, and counts it until it finishes or closes.
public final class BlobDownload: Sendable {
    /// The blob being received.
    public let hash: BlobHash
    /// Its size, from the attachment record.
    public let expectedSize: Int64
    /// Bytes already received by an earlier, cut transfer.
    public let resumeOffset: Int64

    /// The open partial file and what has been learnt of the bytes written to it.
    private struct Partial {
        var fd: Int32
        /// The bytes the file holds: a resumed partial's, then every one appended.
        var digest = BlobDigest()
        /// Where the bytes not yet sent towards the disk begin (see `startWriteback`).
        var writebackFrom: Int64 = 0
        /// Whether the first bytes were looked at to decide on warming libvips up.
        var sniffed = false
    }

    let store: AttachmentStore
    private let path: String
    private let partial: Mutex<Partial?>
    /// libvips, loading while the rest of an image whose header needs it arrives (the header is
    /// read at the end).
    private let imaging = ImagingWarmUp()
    private let received: Mutex<Int64>
    /// Its place among the store's partial downloads, given up when it finishes or closes.
    private let reservation: PartialDownloads.Reservation?

    init(store: AttachmentStore, hash: BlobHash, expectedSize: Int64, reservation: PartialDownloads.Reservation? = nil) throws {
        self.store = store
        self.reservation = reservation
        self.hash = hash
        self.expectedSize = expectedSize
        self.path = store.layout.temporaryPath + "/" + Self.partialName(of: hash)
        let fd = try Self.openPartial(path, in: store.layout.temporaryPath, name: Self.partialName(of: hash))
        // The bytes a cut transfer left are hashed once, now (the partial is open for appending
        // only, so they are read through a descriptor of their own).
        var resumed = Partial(fd: fd)
        do throws(SystemError) {
            resumed.digest = try BlobFileScan.digest(fileAt: path)
        } catch {
            Glibc.close(fd)
            throw AttachmentStore.Error.writeFailed(path: path, cause: .system(error))
        }
        var offset = resumed.digest.byteCount
        if offset > expectedSize {
            // More bytes than the blob has: the partial is wrong; start again.
            ftruncate(fd, 0)
            resumed = Partial(fd: fd)
            offset = 0
        }
        self.resumeOffset = offset
        resumed.writebackFrom = offset
        self.partial = Mutex(resumed)
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

    /// Leading bytes enough to tell an image's type (HEIF's brand sits at bytes 8–11).
    static let sniffLength = 32

    /// Returns once work the download started in the background has ended (libvips loading
    /// for an image whose header will be read). Call it before the process may exit when the
    /// download did not ``finish()``; a finished one has already waited.
    public func settle() async {
        await imaging.settle()
    }

    /// Bytes received so far, the resumed part included.
    public var receivedBytes: Int64 { received.withLock { $0 } }

    /// Appends bytes that follow what was received.
    /// - Throws: ``AttachmentStore/Error/writeFailed(path:cause:)``, or
    ///   ``SizeError/overrun(received:expected:)`` when the peer sends more than the blob has.
    public func append<Bytes: DataProtocol & Sendable>(_ bytes: Bytes) async throws {
        try await append(contentsOf: CollectionOfOne(bytes))
    }

    /// Appends pieces that follow what was received, in order, in one trip to the blocking
    /// pool: each piece is hashed and written where it lies, never copied into another buffer
    /// (a peer fetch hands over the network's buffers as they came, about a MiB at a time).
    /// - Throws: as ``append(_:)``; pieces before the one that overflows are kept.
    public func append<Pieces: Collection & Sendable>(contentsOf pieces: Pieces) async throws
    where Pieces.Element: DataProtocol {
        let (path, expected) = (self.path, expectedSize)
        try await BlockingPool.run { [self] in
            try partial.withLock { current in
                guard var open = current else { throw AttachmentStore.Error.writeFailed(path: path, cause: .condition("download closed")) }
                defer { current = open }
                for piece in pieces {
                    let total = received.withLock { $0 } + Int64(piece.count)
                    guard total <= expected else {
                        throw SizeError.overrun(received: total, expected: expected)
                    }
                    for region in piece.regions {
                        try region.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws in
                            do throws(SystemError) {
                                try POSIXFile.writeAll(open.fd, bytes)
                            } catch {
                                throw AttachmentStore.Error.writeFailed(path: path, cause: .system(error))
                            }
                            open.digest.take(bytes)
                        }
                    }
                    received.withLock { $0 = total }
                }
                // An image's header is read once it has arrived: libvips loads meanwhile, for
                // the formats whose header needs it.
                if !open.sniffed && open.digest.head.count >= min(Self.sniffLength, Int(expected)) {
                    open.sniffed = true
                    let type = MediaTypeSniffer.mediaType(of: open.digest.head)
                    if MediaTypeSniffer.isReadableRaster(type) && !ImageProbe.readsHeaderWithoutLibvips(mediaType: type) { imaging.start() }
                }
                // The disk starts on what arrived while the rest is still coming, so the fsync
                // that ends the download has little left to write.
                let end = received.withLock { $0 }
                if end - open.writebackFrom >= POSIXFile.writebackStep(forFileOf: expected) {
                    POSIXFile.startWriteback(open.fd, from: open.writebackFrom, count: end - open.writebackFrom)
                    open.writebackFrom = end
                }
            }
        }
    }

    /// Checks the hash of the bytes written and, when it is the expected blob, stores it and
    /// marks it present; every attachment of the blob then takes the media type sniffed from
    /// the bytes, whatever the peer's record claimed.
    /// - Throws: ``AttachmentStore/Error/hashMismatch(expected:actual:)`` (the partial file is
    ///   deleted: the next attempt starts from zero), ``SizeError/incomplete(received:expected:)``
    ///   while bytes are still missing (they are kept), or write errors.
    public func finish() async throws {
        let (path, hash, expected) = (self.path, self.hash, expectedSize)
        let staged: StagedBlob = try await BlockingPool.run { [self] in
            let size = received.withLock { $0 }
            guard size >= expected else {
                // A cut transfer, not a wrong one: keep the bytes for a resume.
                throw SizeError.incomplete(received: size, expected: expected)
            }
            guard let taken = partial.withLock({ current -> Partial? in
                defer { current = nil }
                return current
            }) else { throw AttachmentStore.Error.writeFailed(path: path, cause: .condition("download closed")) }
            let actual = taken.digest.hash
            var info = stat()
            // The file holds what was hashed, unless something else wrote to it meanwhile.
            guard actual == hash, size == expected, fstat(taken.fd, &info) == 0, Int64(info.st_size) == size else {
                unlink(path)
                Glibc.close(taken.fd)
                throw AttachmentStore.Error.hashMismatch(expected: hash, actual: actual)
            }
            return StagedBlob(temporaryPath: path, descriptor: taken.fd, storePath: store.layout.root, hash: hash, byteCount: size, head: taken.digest.head)
        }
        await imaging.settle()
        defer { reservation.map { store.partials.end($0, completed: true) } }
        try await store.installDownloaded(staged)
    }

    /// Closes the partial file, keeping it for a later resume (within the store's
    /// ``PartialDownloadLimits``). Idempotent.
    public func close() {
        let closed = partial.withLock { current in
            defer { current = nil }
            guard let open = current else { return false }
            Glibc.close(open.fd)
            return true
        }
        // Not open any more yet never closed here: `finish()` took the file (installed, or
        // removed as wrong), so nothing of this download is left in `tmp/`.
        if let reservation { store.partials.end(reservation, completed: !closed) }
    }
}
