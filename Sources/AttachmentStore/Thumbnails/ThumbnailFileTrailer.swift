import Crypto
import Foundation

/// The 56 bytes after an encoded thumbnail in the disk cache, which let a reader trust the
/// file without a `fsync` at write time or a decode at read time: a magic number, the media
/// type, the pixel size, the length and the SHA-256 of the bytes before it. A file torn by a
/// crash (renamed into place before its bytes reached the disk) fails the check and is
/// rendered again.
///
/// Layout, integers little-endian: `ATHB`, media type code (1 byte), 3 zero bytes, width
/// (UInt32), height (UInt32), length (UInt64), SHA-256 (32 bytes).
struct ThumbnailFileTrailer: Equatable {
    static let size = 56
    static let magic = Array("ATHB".utf8)
    /// The media types a cached thumbnail can have, by code (its index).
    static let mediaTypes = ["image/jpeg", "image/webp", "image/png"]

    var mediaType: String
    var width: Int
    var height: Int
    var length: Int
    var digest: [UInt8]

    /// The trailer of `thumbnail`, `nil` when its type has no code (such a thumbnail is not
    /// cached on disk).
    init?(of thumbnail: Thumbnail) {
        guard Self.mediaTypes.contains(thumbnail.mediaType), thumbnail.width >= 0, thumbnail.height >= 0,
              thumbnail.width <= Int(UInt32.max), thumbnail.height <= Int(UInt32.max) else { return nil }
        mediaType = thumbnail.mediaType
        width = thumbnail.width
        height = thumbnail.height
        length = thumbnail.data.count
        digest = Array(SHA256.hash(data: thumbnail.data))
    }

    /// The trailer's bytes.
    var bytes: [UInt8] {
        var bytes = Self.magic
        bytes.append(UInt8(Self.mediaTypes.firstIndex(of: mediaType) ?? 0))
        bytes += [0, 0, 0]
        bytes += withUnsafeBytes(of: UInt32(width).littleEndian, Array.init)
        bytes += withUnsafeBytes(of: UInt32(height).littleEndian, Array.init)
        bytes += withUnsafeBytes(of: UInt64(length).littleEndian, Array.init)
        return bytes + digest
    }

    /// The thumbnail a cached file holds, `nil` unless its trailer is whole and its bytes
    /// hash to the digest the trailer records.
    static func thumbnail(from file: Data) -> Thumbnail? {
        guard file.count >= size else { return nil }
        let trailer = Array(file.suffix(size))
        guard Array(trailer[0..<4]) == magic, Int(trailer[4]) < mediaTypes.count, trailer[5..<8].allSatisfy({ $0 == 0 }) else {
            return nil
        }
        let width = Int(integer(UInt32.self, trailer[8..<12]))
        let height = Int(integer(UInt32.self, trailer[12..<16]))
        let length = integer(UInt64.self, trailer[16..<24])
        guard length == UInt64(file.count - size) else { return nil }
        let data = file.prefix(file.count - size)
        guard Array(SHA256.hash(data: data)) == Array(trailer[24..<56]) else { return nil }
        return Thumbnail(data: Data(data), mediaType: mediaTypes[Int(trailer[4])], width: width, height: height)
    }

    private static func integer<T: FixedWidthInteger>(_ type: T.Type, _ bytes: ArraySlice<UInt8>) -> T {
        bytes.reversed().reduce(T(0)) { $0 << 8 | T($1) }
    }
}
