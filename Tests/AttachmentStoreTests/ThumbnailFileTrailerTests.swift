@testable import AttachmentStore
import Foundation
import Testing

/// The 56-byte trailer that lets the thumbnail disk cache trust a file without `fsync`.
@Suite("Thumbnail file trailer")
struct ThumbnailFileTrailerTests {
    static func file(_ thumbnail: Thumbnail) throws -> Data {
        thumbnail.data + (try #require(ThumbnailFileTrailer(of: thumbnail))).bytes
    }

    static let sample = Thumbnail(data: Data((0..<97).map { UInt8($0 &* 7 % 256) }), mediaType: "image/jpeg", width: 64, height: 48)

    @Test("every media type with a code round-trips, its code being its index", arguments: Array(ThumbnailFileTrailer.mediaTypes.enumerated()))
    func mediaTypesRoundTrip(code: Int, mediaType: String) throws {
        let thumbnail = Thumbnail(data: Data("pixels of \(mediaType)".utf8), mediaType: mediaType, width: 3, height: 2)
        let file = try Self.file(thumbnail)
        #expect(file[thumbnail.data.count + 4] == UInt8(code))
        #expect(ThumbnailFileTrailer.thumbnail(from: file) == thumbnail)
    }

    @Test("the layout is the magic, the code, three zero bytes, then little-endian width, height and length")
    func layout() throws {
        let trailer = try #require(ThumbnailFileTrailer(of: Thumbnail(data: Data([1, 2, 3]), mediaType: "image/png", width: 0x0102_0304, height: 5)))
        let bytes = trailer.bytes
        #expect(bytes.count == ThumbnailFileTrailer.size)
        #expect(Array(bytes[0..<8]) == Array("ATHB".utf8) + [2, 0, 0, 0])
        #expect(Array(bytes[8..<24]) == [4, 3, 2, 1, 5, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0])
        #expect(trailer.digest.count == 32 && Array(bytes[24...]) == trailer.digest)
    }

    @Test("width and height up to UInt32.max round-trip; beyond it or negative there is no trailer")
    func dimensionLimits() throws {
        let largest = Thumbnail(data: Data([9]), mediaType: "image/webp", width: Int(UInt32.max), height: Int(UInt32.max))
        #expect(ThumbnailFileTrailer.thumbnail(from: try Self.file(largest)) == largest)
        let zero = Thumbnail(data: Data([9]), mediaType: "image/webp", width: 0, height: 0)
        #expect(ThumbnailFileTrailer.thumbnail(from: try Self.file(zero)) == zero)
        #expect(ThumbnailFileTrailer(of: Thumbnail(data: Data(), mediaType: "image/png", width: Int(UInt32.max) + 1, height: 1)) == nil)
        #expect(ThumbnailFileTrailer(of: Thumbnail(data: Data(), mediaType: "image/png", width: 1, height: Int(UInt32.max) + 1)) == nil)
        #expect(ThumbnailFileTrailer(of: Thumbnail(data: Data(), mediaType: "image/png", width: -1, height: 1)) == nil)
        #expect(ThumbnailFileTrailer(of: Thumbnail(data: Data(), mediaType: "image/png", width: 1, height: -1)) == nil)
    }

    @Test("a thumbnail of zero bytes is a file of only its trailer and round-trips")
    func zeroLengthData() throws {
        let empty = Thumbnail(data: Data(), mediaType: "image/jpeg", width: 1, height: 1)
        let file = try Self.file(empty)
        #expect(file.count == ThumbnailFileTrailer.size)
        #expect(ThumbnailFileTrailer.thumbnail(from: file) == empty)
    }

    @Test("a file shorter than a trailer, or one byte short of a whole file, is no thumbnail")
    func shortFiles() throws {
        let file = try Self.file(Self.sample)
        #expect(ThumbnailFileTrailer.thumbnail(from: file.dropFirst()) == nil)
        #expect(ThumbnailFileTrailer.thumbnail(from: file.dropLast()) == nil)
        #expect(ThumbnailFileTrailer.thumbnail(from: file.suffix(ThumbnailFileTrailer.size - 1)) == nil)
        #expect(ThumbnailFileTrailer.thumbnail(from: Data()) == nil)
        #expect(ThumbnailFileTrailer.thumbnail(from: Data(count: ThumbnailFileTrailer.size)) == nil)
    }

    @Test("a file that is a slice of a larger buffer is read like a copy")
    func sliceInput() throws {
        let buffer = Data([0xAA, 0xBB]) + (try Self.file(Self.sample)) + Data([0xCC])
        #expect(ThumbnailFileTrailer.thumbnail(from: buffer.dropFirst(2).dropLast()) == Self.sample)
    }

    @Test("a nonzero reserved byte is refused", arguments: [5, 6, 7])
    func reservedBytes(index: Int) throws {
        var file = try Self.file(Self.sample)
        file[Self.sample.data.count + index] = 1
        #expect(ThumbnailFileTrailer.thumbnail(from: file) == nil)
    }

    @Test("a media type code past the known types is refused", arguments: [3, 4, 255])
    func unknownCode(code: UInt8) throws {
        var file = try Self.file(Self.sample)
        file[Self.sample.data.count + 4] = code
        #expect(ThumbnailFileTrailer.thumbnail(from: file) == nil)
    }

    @Test("a length field that does not match the bytes before the trailer is refused", arguments: [
        UInt64(96), 98, 0, UInt64.max, UInt64(97) << 32,
    ])
    func lengthMismatch(length: UInt64) throws {
        var file = try Self.file(Self.sample)
        let start = Self.sample.data.count + 16
        file.replaceSubrange(start..<start + 8, with: withUnsafeBytes(of: length.littleEndian, Array.init))
        #expect(ThumbnailFileTrailer.thumbnail(from: file) == nil)
    }

    @Test("a changed digest byte, or bytes added before the data, is refused")
    func digestAndPrefix() throws {
        var file = try Self.file(Self.sample)
        #expect(ThumbnailFileTrailer.thumbnail(from: Data([0]) + file) == nil)
        file[file.count - 1] ^= 0x80
        #expect(ThumbnailFileTrailer.thumbnail(from: file) == nil)
    }

    @Test("a type without a code, even a near spelling, has no trailer", arguments: [
        "image/gif", "image/JPEG", "image/jpg", "", "image/png ", "image/avif",
    ])
    func uncodedTypes(mediaType: String) {
        #expect(ThumbnailFileTrailer(of: Thumbnail(data: Data([1]), mediaType: mediaType, width: 1, height: 1)) == nil)
    }
}
