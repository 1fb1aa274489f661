import Foundation

/// The receiving side of a peer pushing the bytes of originals (a device that cannot be fetched
/// from sends what it created): resumable, verified by hash, and only for blobs a record here
/// already names, so a pusher cannot fill the disk with bytes nothing refers to.
extension AttachmentStore {
    /// Where a push of one original stands.
    package struct PushedBlobStatus: Sendable, Equatable {
        /// The original's size, from its record.
        package var byteCount: Int64
        /// The bytes held: all of them once present, else what earlier, cut transfers left.
        package var offset: Int64
        /// Whether the bytes are here whole, so nothing more is wanted.
        package var isComplete: Bool { offset == byteCount }
    }

    /// How many bytes of `hash` are held, for a pusher to continue after them.
    /// - Throws: ``Error/pushedBlob(_:)`` `.notWanted` when no record here names the blob.
    package func pushedBlobStatus(_ hash: BlobHash) async throws -> PushedBlobStatus {
        guard let record = try await catalog.read({ db in try BlobRecord.fetch(hash.rawValue, in: db) }) else {
            throw Error.pushedBlob(.notWanted(hash))
        }
        if record.state == .present { return PushedBlobStatus(byteCount: record.byteCount, offset: record.byteCount) }
        let path = layout.temporaryPath + "/" + BlobDownload.partialName(of: hash)
        let held = try await BlockingPool.run { () throws(Error) -> Int64 in
            // No partial file: nothing held yet. Any other failure is the store's to report.
            do throws(SystemError) {
                return try POSIXFile.size(ofFileAt: path) ?? 0
            } catch {
                throw .writeFailed(path: path, cause: .system(error))
            }
        }
        // A partial longer than the blob is wrong and is started over (see `BlobDownload`).
        return PushedBlobStatus(byteCount: record.byteCount, offset: held <= record.byteCount ? held : 0)
    }

    /// Takes pushed bytes of `hash` that continue after the `offset` bytes held: they are hashed
    /// as they are written into the same partial file a fetch uses, and once the last one has
    /// arrived the blob is installed only if the bytes hash to its name. A transfer cut midway
    /// keeps what arrived, for the next request to continue from.
    /// - Parameter peer: who pushes (its description), for the per-peer caps on partial files.
    /// - Returns: the bytes held afterwards (the blob's size once it is installed).
    /// - Throws: ``Error/pushedBlob(_:)`` (`notWanted`, `offsetMismatch`, `busy`, `exceedsSize`,
    ///   `hashMismatch`), or write errors; what `bytes` throws.
    package func receivePushedBlob<Bytes: AsyncSequence>(_ hash: BlobHash, at offset: Int64, bytes: Bytes,
                                                        from peer: String) async throws -> Int64
    where Bytes.Element: DataProtocol & Sendable {
        let status = try await pushedBlobStatus(hash)
        guard !status.isComplete else { throw Error.pushedBlob(.offsetMismatch(expected: status.byteCount, given: offset)) }
        let download: BlobDownload
        do {
            download = try await blobDownload(for: hash, byteCount: status.byteCount, from: peer)
        } catch Error.writeFailed(_, .condition) {
            // Another transfer holds the partial file, or the partial files fill their caps.
            throw Error.pushedBlob(.busy(hash))
        }
        defer { download.close() }
        guard download.resumeOffset == offset else {
            throw Error.pushedBlob(.offsetMismatch(expected: download.resumeOffset, given: offset))
        }
        do {
            _ = try await download.receive(bytes)
        } catch is BlobDownload.SizeError {
            await download.settle()
            throw Error.pushedBlob(.exceedsSize(hash, byteCount: status.byteCount))
        } catch let cut as BlobDownload.Cut {
            // The bytes were cut (the sender went away, or was too slow): what arrived is kept.
            await download.settle()
            throw cut.cause
        } catch {
            await download.settle()
            throw error
        }
        guard download.receivedBytes == status.byteCount else {
            await download.settle()
            return download.receivedBytes
        }
        do {
            try await download.finish()
        } catch Error.hashMismatch(let expected, let actual) {
            throw Error.pushedBlob(.hashMismatch(expected: expected, actual: actual))
        }
        return status.byteCount
    }

    /// Those of `hashes` whose bytes this store lacks (known only as records, evicted, or
    /// damaged), in the order given: what a pusher of records naming them should send next.
    package func blobsLacking(among hashes: [BlobHash]) async throws -> [BlobHash] {
        guard !hashes.isEmpty else { return [] }
        return try await catalog.read { db in
            var seen = Set<BlobHash>()
            return try hashes.filter { hash in
                guard seen.insert(hash).inserted, let record = try BlobRecord.fetch(hash.rawValue, in: db) else { return false }
                return record.state != .present
            }
        }
    }
}
