import Foundation

/// A few bytes of a blob at an offset chosen at random: what a holder must give back to prove
/// it holds the blob (a peer that only claims to cannot know them).
public struct BlobSample: Sendable, Equatable {
    /// Where the bytes start.
    public var offset: Int64
    /// The bytes (at most 4 KiB).
    public var bytes: [UInt8]

    /// A sample.
    public init(offset: Int64, bytes: [UInt8]) {
        self.offset = offset
        self.bytes = bytes
    }

    /// Up to 4 KiB at a random offset of the file at `path`, which holds `byteCount` bytes,
    /// read without making the file look recently read. Blocks.
    static func random(ofFileAt path: String, byteCount: Int64) throws -> BlobSample {
        let length = Int(min(4096, byteCount))
        let offset = byteCount > Int64(length) ? Int64.random(in: 0...(byteCount - Int64(length))) : 0
        let fd = LeastRecentlyRead.openWithoutRecordingRead(path)
        guard fd >= 0 else { throw SystemError("open \(path)") }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        return BlobSample(offset: offset, bytes: [UInt8](try handle.read(upToCount: length) ?? Data()))
    }
}
