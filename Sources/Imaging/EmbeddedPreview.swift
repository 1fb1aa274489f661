#if canImport(Glibc)
import Glibc
#endif

/// A large preview a camera or phone stored inside a JPEG, found through the file's
/// Multi-Picture Format index (CIPA DC-007, the `MPF` APP2 segment): a second, smaller JPEG
/// of the same picture appended after the first, typically 1,920 pixels wide.
///
/// A thumbnail made from it decodes a few hundred kilobytes instead of the whole photo. Only
/// an entry that the index calls a *large thumbnail* (types `0x010001` and `0x010002`) is
/// taken, never a depth map, a gain map or another view, and only when it is a colour JPEG
/// that lies inside the file, reads as a plain JPEG (``JPEGHeaderReader``), has the picture's
/// proportions and is no larger than the picture. Everything else in the index is hostile
/// until checked: offsets, sizes and counts are bounded before anything is read.
package struct EmbeddedPreview: Sendable, Equatable {
    /// Where the preview's bytes start in the file.
    package let offset: Int64
    /// How many bytes it has.
    package let length: Int
    /// Its stored width in pixels (before any orientation).
    package let width: Int
    /// Its stored height in pixels (before any orientation).
    package let height: Int

    /// The most bytes a preview may have (a phone's 1,920-pixel preview has a few hundred KB).
    static let maxLength = 16 << 20
    /// How far two aspect ratios may differ (as a fraction) for a preview to count as the picture.
    static let aspectTolerance = 0.01

    /// The largest preview in the JPEG at `path` whose stored size is at least
    /// `minimumWidth` × `minimumHeight` and whose proportions are `primary`'s, or `nil`.
    /// Blocks (reads the file).
    package static func find(inFileAt path: String, primary: ImageHeader, minimumWidth: Int,
                             minimumHeight: Int) -> EmbeddedPreview? {
        FileBytes.reading(fileAt: path) { source in
            find(in: source, primary: primary, minimumWidth: minimumWidth, minimumHeight: minimumHeight)
        }
    }

    /// As ``find(inFileAt:primary:minimumWidth:minimumHeight:)``, in a file already open.
    static func find(in source: FileBytes, primary: ImageHeader, minimumWidth: Int, minimumHeight: Int) -> EmbeddedPreview? {
        guard primary.format == .jpeg, let index = MultiPictureIndex.read(from: source) else { return nil }
        return index.largeThumbnails
            .compactMap { entry in preview(at: entry, in: source, primary: primary) }
            .filter { $0.width >= minimumWidth && $0.height >= minimumHeight }
            .max { $0.width * $0.height < $1.width * $1.height }
    }

    /// The entry's image as a preview, when it checks out (see the type's description).
    static func preview(at entry: MultiPictureIndex.Entry, in source: FileBytes, primary: ImageHeader) -> EmbeddedPreview? {
        guard entry.length >= 4, entry.length <= maxLength, entry.offset > 0,
              entry.offset + Int64(entry.length) <= source.fileSize,
              let header = JPEGHeaderReader.header(reading: FileBytes(fd: source.fd, base: entry.offset, fileSize: source.fileSize)),
              header.bands == 3, header.width <= primary.width, header.height <= primary.height else { return nil }
        let primaryAspect = Double(primary.width) / Double(primary.height)
        let previewAspect = Double(header.width) / Double(header.height)
        guard abs(previewAspect / primaryAspect - 1) <= aspectTolerance else { return nil }
        return EmbeddedPreview(offset: entry.offset, length: entry.length, width: header.width, height: header.height)
    }

    /// The preview's bytes, or `nil` when the file no longer holds them. Blocks.
    package func bytes(inFileAt path: String) -> [UInt8]? {
        FileBytes.reading(fileAt: path) { source in bytes(in: source) }
    }

    /// The preview's bytes from a file already open.
    func bytes(in source: FileBytes) -> [UInt8]? {
        source.bytes(at: offset, count: length)
    }
}

/// The image list of a JPEG's Multi-Picture Format index (the `MPF` APP2 segment before the
/// first scan): for each image its type, size and offset. Offsets in the index count from the
/// segment's byte-order mark; ``Entry/offset`` counts from the start of the file.
struct MultiPictureIndex {
    /// One image the index lists.
    struct Entry: Equatable {
        /// The MP type code (the attribute's low 24 bits): `0x010001`/`0x010002` large thumbnails,
        /// `0x030000` the baseline primary image, others views, depth or gain maps.
        let type: UInt32
        /// The image data format (attribute bits 24–26): 0 is JPEG.
        let dataFormat: UInt32
        let length: Int
        let offset: Int64
    }

    /// Every image the index lists, the first (the primary image itself) included.
    let entries: [Entry]

    /// The listed JPEG large thumbnails, the primary image excluded.
    var largeThumbnails: [Entry] {
        entries.dropFirst().filter { $0.dataFormat == 0 && ($0.type == 0x010001 || $0.type == 0x010002) }
    }

    /// How many markers may come before the MPF segment; more and the file has none worth finding.
    static let maxMarkers = 64
    /// The most images an index may list (phones list two or three).
    static let maxEntries = 32
    /// The most directory entries the index's IFD may have.
    static let maxTags = 64

    /// The index of the JPEG `source` reads, or `nil` when it has none or it does not parse.
    static func read(from source: FileBytes) -> MultiPictureIndex? {
        guard let start = source.bytes(at: 0, count: 2), start == [0xFF, 0xD8] else { return nil }
        var offset: Int64 = 2
        for _ in 0..<maxMarkers {
            guard let head = source.bytes(at: offset, count: 4), head[0] == 0xFF else { return nil }
            let marker = head[1]
            let length = Int(head[2]) << 8 | Int(head[3])
            // The index comes in the header; a frame, a scan or a broken marker ends the search.
            guard (0xE0...0xEF).contains(marker) || marker == 0xFE || marker == 0xDB || marker == 0xC4 || marker == 0xDD,
                  length >= 2 else { return nil }
            let body = offset + 4
            if marker == 0xE2, length > 8, let signature = source.bytes(at: body, count: 4), signature == [0x4D, 0x50, 0x46, 0x00],
               let segment = source.bytes(at: body + 4, count: length - 6) {
                return parse(segment, at: body + 4)
            }
            offset = body + Int64(length - 2)
        }
        return nil
    }

    /// The index in `segment`, the TIFF-style block after `MPF\0`, which starts at `base` in the file.
    static func parse(_ segment: [UInt8], at base: Int64) -> MultiPictureIndex? {
        guard segment.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (segment[0], segment[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= segment.count else { return nil }
            let (a, b) = (Int(segment[at]), Int(segment[at + 1]))
            return bigEndian ? a << 8 | b : b << 8 | a
        }
        func u32(_ at: Int) -> UInt32? {
            guard let first = u16(at), let second = u16(at + 2) else { return nil }
            return bigEndian ? UInt32(first) << 16 | UInt32(second) : UInt32(second) << 16 | UInt32(first)
        }
        guard u16(2) == 42, let ifd = u32(4).map(Int.init), let tags = u16(ifd), tags <= maxTags else { return nil }
        for tag in 0..<tags {
            let entry = ifd + 2 + 12 * tag
            guard let id = u16(entry), let type = u16(entry + 2), let count = u32(entry + 4).map(Int.init),
                  let value = u32(entry + 8).map(Int.init) else { return nil }
            guard id == 0xB002 else { continue }  // the MP entry list
            guard type == 7, count % 16 == 0, (16...16 * maxEntries).contains(count), value + count <= segment.count else { return nil }
            var entries: [Entry] = []
            for image in 0..<(count / 16) {
                let at = value + 16 * image
                guard let attribute = u32(at), let size = u32(at + 4), let start = u32(at + 8) else { return nil }
                // The primary image's offset is 0 by definition; the others count from `base`.
                entries.append(Entry(type: attribute & 0xFF_FFFF, dataFormat: (attribute >> 24) & 0x7,
                                     length: Int(size), offset: start == 0 ? 0 : base + Int64(start)))
            }
            return MultiPictureIndex(entries: entries)
        }
        return nil
    }
}
