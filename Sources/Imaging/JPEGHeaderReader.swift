#if canImport(Glibc)
import Glibc
#endif

/// Reads the header of a plain JPEG without libvips: its markers up to the first scan, the
/// frame's size and components, and the EXIF orientation.
///
/// Loading libvips and the libraries it brings costs some 30 ms of CPU, more than the rest of
/// reading a photo's header; a command that only stores or fetches JPEGs never needs it. The
/// reader answers only what it can answer exactly as libvips (libjpeg) would, and `nil` for
/// everything else, so the caller then asks libvips. It answers for an 8-bit Huffman frame
/// (baseline, extended or progressive) of one or three components whose markers up to the
/// first scan are well formed, checked the way libjpeg's `jpeg_read_header` checks them, and
/// whose EXIF orientation, if any, is plain (see ``ExifOrientation``). Any other frame (CMYK,
/// 12-bit, lossless, arithmetic), stray bytes between markers, or a marker it does not know
/// makes it step aside. Reads what it needs with `pread` (the segments it skips are not
/// read), within bounds on markers, fill bytes and header length; blocks.
package enum JPEGHeaderReader {
    /// How far into a file the first scan may start; a header past this is left to libvips.
    static let maxHeaderBytes: Int64 = 16 << 20
    /// How many markers may come before the first scan; more is left to libvips.
    static let maxMarkers = 1024
    /// How many fill bytes (`0xFF`) may come before one marker; more is left to libvips.
    static let maxFillBytes = 64

    /// The header of the JPEG file at `path`, or `nil` when the reader leaves it to libvips
    /// (not a plain JPEG as above, damaged, or unreadable).
    package static func header(ofFileAt path: String) -> ImageHeader? {
        FileBytes.reading(fileAt: path) { source in header(reading: source) }
    }

    /// The header of the JPEG whose bytes `source` gives, or `nil` as above.
    static func header(reading source: FileBytes) -> ImageHeader? {
        guard let start = source.bytes(at: 0, count: 2), start == [0xFF, 0xD8] else { return nil }
        var offset: Int64 = 2
        var frame: Frame?
        var orientation = 1  // what libvips reads when there is no EXIF
        var exifSeen = false
        var contentIdentifier: String?
        var xmp: [UInt8]?
        for _ in 0..<maxMarkers {
            // libjpeg skips stray bytes before a marker with a warning; the reader steps aside.
            guard offset < maxHeaderBytes, let prefix = source.bytes(at: offset, count: 2), prefix[0] == 0xFF else { return nil }
            var marker = prefix[1]
            offset += 2
            var fill = 0
            while marker == 0xFF {  // fill bytes: a few are normal; a run of them is left to libvips
                fill += 1
                guard fill <= maxFillBytes, let next = source.bytes(at: offset, count: 1) else { return nil }
                marker = next[0]
                offset += 1
            }
            guard let lengthBytes = source.bytes(at: offset, count: 2) else { return nil }
            let length = Int(lengthBytes[0]) << 8 | Int(lengthBytes[1])
            guard length >= 2 else { return nil }
            let body = offset + 2
            let bodyLength = length - 2
            switch marker {
            case 0xE1:  // APP1: EXIF here; libvips reads the first EXIF block only
                if !exifSeen, bodyLength > 4, let head = source.bytes(at: body, count: 4), head == Array("Exif".utf8) {
                    guard let data = source.bytes(at: body, count: bodyLength) else { return nil }
                    exifSeen = true
                    contentIdentifier = LivePhotoIdentifier.reading(inEXIF: data)
                    switch ExifOrientation.reading(inAPP1: data) {
                    case .absent: break
                    case .orientation(let value): orientation = value
                    case .unsure: return nil
                    }
                } else if xmp == nil, bodyLength > MotionPhoto.xmpSignature.count,
                          let head = source.bytes(at: body, count: MotionPhoto.xmpSignature.count), head == MotionPhoto.xmpSignature {
                    // XMP: read for an Android motion photo's clip only (libvips reads it too).
                    xmp = source.bytes(at: body, count: bodyLength)
                }
            case 0xE0, 0xE2...0xEF, 0xFE:  // other APPn and COM: skipped, as long as they are there
                break
            case 0xDB:  // DQT
                guard let data = source.bytes(at: body, count: bodyLength), validQuantizationTables(data) else { return nil }
            case 0xC4:  // DHT
                guard let data = source.bytes(at: body, count: bodyLength), validHuffmanTables(data) else { return nil }
            case 0xDD:  // DRI
                guard length == 4 else { return nil }
            case 0xC0, 0xC1, 0xC2:  // SOF0–2: 8-bit Huffman frames
                guard frame == nil, let data = source.bytes(at: body, count: bodyLength), let parsed = Frame(data) else { return nil }
                frame = parsed
            case 0xDA:  // SOS: the header ends at the first scan
                guard let frame, let data = source.bytes(at: body, count: bodyLength), frame.acceptsScan(data) else { return nil }
                return ImageHeader(format: .jpeg, width: frame.width, height: frame.height,
                                   orientation: orientation, hasAlpha: false, frameCount: 1,
                                   bands: frame.components.count, bytesPerBand: 1, contentIdentifier: contentIdentifier,
                                   embeddedVideoOffset: source.base == 0 ? xmp.flatMap { xmp in
                                       MotionPhoto.videoOffset(xmp: xmp, fileSize: source.fileSize) { source.bytes(at: $0, count: 8) }
                                   } : nil)
            default:  // other frames, DAC, DNL, EOI, RSTn, a second SOI, reserved: libvips decides
                return nil
            }
            offset = body + Int64(bodyLength)
        }
        return nil
    }

    /// A frame header (SOFn) as libjpeg accepts it.
    struct Frame {
        let width: Int
        let height: Int
        /// Component identifiers, in order.
        let components: [UInt8]

        /// Parses an SOF body; `nil` when libjpeg would refuse it or the reader does not answer for it.
        init?(_ data: [UInt8]) {
            guard data.count >= 6 else { return nil }
            let precision = data[0]
            height = Int(data[1]) << 8 | Int(data[2])
            width = Int(data[3]) << 8 | Int(data[4])
            let count = Int(data[5])
            // 8-bit samples; no DNL-defined height; grey or three components (CMYK and YCCK
            // are left to libvips); libjpeg's 65500-pixel limit.
            guard precision == 8, height > 0, width > 0, height <= 65_500, width <= 65_500, count == 1 || count == 3,
                  data.count == 6 + 3 * count else { return nil }
            var identifiers: [UInt8] = []
            for index in 0..<count {
                let base = 6 + 3 * index
                let (horizontal, vertical) = (data[base + 1] >> 4, data[base + 1] & 0x0F)
                // Sampling factors 1–4 (libjpeg's limit), quantisation tables 0–3, distinct
                // identifiers (so that a scan names each component unambiguously).
                guard (1...4).contains(horizontal), (1...4).contains(vertical), data[base + 2] <= 3,
                      !identifiers.contains(data[base]) else { return nil }
                identifiers.append(data[base])
            }
            components = identifiers
        }

        /// Whether an SOS body names one to four of this frame's components, each once, with
        /// table numbers libjpeg accepts.
        func acceptsScan(_ data: [UInt8]) -> Bool {
            guard let count = data.first.map(Int.init), (1...4).contains(count), data.count == 4 + 2 * count else { return false }
            var seen: Set<UInt8> = []
            for index in 0..<count {
                let (identifier, tables) = (data[1 + 2 * index], data[2 + 2 * index])
                guard components.contains(identifier), seen.insert(identifier).inserted, tables >> 4 <= 3, tables & 0x0F <= 3 else {
                    return false
                }
            }
            return true
        }
    }

    /// Whether a DQT body is whole: tables 0–3, 8- or 16-bit, exactly filling the segment.
    static func validQuantizationTables(_ data: [UInt8]) -> Bool {
        var index = 0
        while index < data.count {
            let (precision, table) = (data[index] >> 4, data[index] & 0x0F)
            guard precision <= 1, table <= 3 else { return false }
            index += 1 + 64 * (Int(precision) + 1)
        }
        return index == data.count && !data.isEmpty
    }

    /// Whether a DHT body is whole: classes 0–1, tables 0–3, at most 256 codes each, exactly
    /// filling the segment.
    static func validHuffmanTables(_ data: [UInt8]) -> Bool {
        var index = 0
        while index < data.count {
            guard index + 17 <= data.count else { return false }
            let (tableClass, table) = (data[index] >> 4, data[index] & 0x0F)
            let codes = data[(index + 1)..<(index + 17)].reduce(0) { $0 + Int($1) }
            guard tableClass <= 1, table <= 3, codes <= 256 else { return false }
            index += 17 + codes
        }
        return index == data.count && !data.isEmpty
    }
}

/// A file's bytes through `pread` on an open descriptor, counted from `base` (0: the file's
/// start; an embedded image's offset to read that image as if it were a file).
struct FileBytes {
    let fd: Int32
    var base: Int64 = 0
    /// The file's size when it was opened by ``reading(fileAt:_:)`` (0 otherwise).
    var fileSize: Int64 = 0

    /// Opens the file at `path` read-only, hands `body` its bytes, and closes it; `nil` when it
    /// cannot be opened.
    static func reading<T>(fileAt path: String, _ body: (FileBytes) -> T?) -> T? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        return body(FileBytes(fd: fd, fileSize: Int64(info.st_size)))
    }

    /// Exactly `count` bytes from `offset`, or `nil` when the file ends before them (or cannot
    /// be read).
    func bytes(at offset: Int64, count: Int) -> [UInt8]? {
        guard count >= 0, offset >= 0 else { return nil }
        var result = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let read = result.withUnsafeMutableBytes { buffer in
                pread(fd, buffer.baseAddress! + filled, count - filled, off_t(base + offset) + off_t(filled))
            }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { return nil }
            filled += read
        }
        return result
    }
}
