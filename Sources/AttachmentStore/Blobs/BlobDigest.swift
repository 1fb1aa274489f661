import Crypto

/// What is learnt of a blob's bytes as they go by: their SHA-256, their count and the first
/// ``headLength`` of them (for sniffing the media type). Fed by everything that hashes while it
/// writes or reads — a staging ingest (``BlobWriter``), a download from a peer
/// (``BlobDownload``), a re-hash of a file (``BlobFileScan``).
struct BlobDigest {
    /// How many leading bytes are kept.
    static let headLength = 4096

    private var hasher = SHA256()
    /// Bytes taken so far.
    private(set) var byteCount: Int64 = 0
    /// The first ``headLength`` bytes taken (fewer while fewer have been).
    private(set) var head: [UInt8] = []

    /// Takes the next `bytes`.
    mutating func take(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: bytes)
        byteCount += Int64(bytes.count)
        if head.count < Self.headLength {
            head.append(contentsOf: bytes.prefix(Self.headLength - head.count))
        }
    }

    /// The hash of every byte taken.
    var hash: BlobHash { BlobHash(digest: hasher.finalize()) }
}
