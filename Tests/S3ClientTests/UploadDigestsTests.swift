import Crypto
import Foundation
import NIOCore
@testable import S3Client
import Testing

/// `UploadDigests`, the hashes a file upload keeps while its bodies stream from disk: the
/// SHA-256 of the whole file, which grows only by bytes that extend what was hashed (so a
/// retried part is hashed once and a gap leaves it unfinished), and the MD5 of each request
/// attempt, which starts over with every attempt.
@Suite("S3 uploads: the digests of a streamed file")
struct UploadDigestsTests {
    static let file: [UInt8] = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    static func sha256(_ bytes: some Sequence<UInt8>) -> String { SHA256.hash(data: Array(bytes)).hexString }
    static func md5(_ bytes: some Sequence<UInt8>) -> String { Insecure.MD5.hash(data: Array(bytes)).hexString }

    /// Feeds `file[range]` at its offset, in chunks of `chunk` bytes.
    static func feed(_ digests: UploadDigests, _ range: Range<Int>, chunk: Int = 1000) {
        var offset = range.lowerBound
        while offset < range.upperBound {
            let end = min(offset + chunk, range.upperBound)
            digests.feed(ByteBuffer(bytes: file[offset..<end]), at: Int64(offset))
            offset = end
        }
    }

    @Test("a file sent in order, in any chunk size, hashes to its SHA-256", arguments: [1, 7, 1000, 4096, 10_000])
    func inOrder(chunk: Int) {
        let digests = UploadDigests()
        Self.feed(digests, 0..<Self.file.count, chunk: chunk)
        #expect(digests.fileSHA256(size: Int64(Self.file.count)) == Self.sha256(Self.file))
    }

    @Test("an empty file has the SHA-256 of nothing without anything fed")
    func emptyFile() {
        #expect(UploadDigests().fileSHA256(size: 0) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("the file hash is withheld until exactly size bytes are hashed")
    func withheldUntilComplete() {
        let digests = UploadDigests()
        Self.feed(digests, 0..<6000)
        #expect(digests.fileSHA256(size: Int64(Self.file.count)) == nil)
        #expect(digests.fileSHA256(size: 5999) == nil, "more bytes than the size asked for is no match either")
    }

    @Test("a part sent twice (a retry) is hashed once")
    func retriedPartHashedOnce() {
        let digests = UploadDigests()
        Self.feed(digests, 0..<5000)
        Self.feed(digests, 0..<5000)
        Self.feed(digests, 5000..<10_000)
        Self.feed(digests, 5000..<10_000)
        #expect(digests.fileSHA256(size: 10_000) == Self.sha256(Self.file))
    }

    @Test("a chunk that overlaps what was hashed adds only its new bytes")
    func overlappingChunk() {
        let digests = UploadDigests()
        Self.feed(digests, 0..<3000)
        digests.feed(ByteBuffer(bytes: Self.file[2500..<7000]), at: 2500)
        Self.feed(digests, 7000..<10_000)
        #expect(digests.fileSHA256(size: 10_000) == Self.sha256(Self.file))
    }

    @Test("bytes past a gap are not hashed, so a skipped range leaves the file hash unfinished")
    func gapLeavesHashUnfinished() {
        let digests = UploadDigests()
        Self.feed(digests, 0..<3000)
        Self.feed(digests, 4000..<10_000)
        #expect(digests.fileSHA256(size: 10_000) == nil)
        // Filling the gap late does not rescue the bytes already skipped.
        Self.feed(digests, 3000..<4000)
        #expect(digests.fileSHA256(size: 10_000) == nil)
        #expect(digests.fileSHA256(size: 4000) == Self.sha256(Self.file[0..<4000]))
    }

    @Test("an empty chunk changes nothing")
    func emptyChunk() {
        let digests = UploadDigests()
        Self.feed(digests, 0..<100)
        digests.feed(ByteBuffer(), at: 100)
        digests.feed(ByteBuffer(), at: 0)
        #expect(digests.fileSHA256(size: 100) == Self.sha256(Self.file[0..<100]))
    }

    @Test("the request MD5 covers the bytes of the current attempt only, retried bytes included")
    func requestMD5PerAttempt() {
        let digests = UploadDigests()
        #expect(digests.requestMD5() == Self.md5([]))
        digests.beginRequest()
        Self.feed(digests, 0..<4000)
        #expect(digests.requestMD5() == Self.md5(Self.file[0..<4000]))
        // The attempt failed; the retry sends the same part again.
        digests.beginRequest()
        Self.feed(digests, 0..<4000)
        #expect(digests.requestMD5() == Self.md5(Self.file[0..<4000]))
        // The next part: its own MD5, while the file hash went on.
        digests.beginRequest()
        Self.feed(digests, 4000..<10_000)
        #expect(digests.requestMD5() == Self.md5(Self.file[4000..<10_000]))
        #expect(digests.fileSHA256(size: 10_000) == Self.sha256(Self.file))
    }

    @Test("the request MD5 counts bytes that the file hash skips as already hashed")
    func md5CountsSkippedBytes() {
        let digests = UploadDigests()
        Self.feed(digests, 0..<2000)
        digests.beginRequest()
        Self.feed(digests, 1000..<2000)
        #expect(digests.requestMD5() == Self.md5(Self.file[1000..<2000]))
        #expect(digests.fileSHA256(size: 2000) == Self.sha256(Self.file[0..<2000]))
    }
}
