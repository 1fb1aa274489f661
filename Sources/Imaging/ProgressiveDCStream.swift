#if canImport(Glibc)
import Glibc
#endif

/// A progressive JPEG cut down to what a 1/8-scale decode reads: its header, its DC scans
/// (the first coefficient of every block, and any refinement of it), the first pass over each
/// component's lowest AC bands, and its end, without the scans that carry the rest of the detail.
///
/// At 1/8 scale libjpeg turns each 8×8 block of the full-resolution component into one pixel
/// from its DC coefficient alone (its 1×1 inverse DCT reads nothing else), so the cut stream
/// gives the whole file's pixels at that scale from about a quarter of its bytes: exactly for
/// the lightness, within a level or two for a subsampled colour component (libjpeg scales it
/// with a 2×2 inverse DCT, which also reads the three lowest AC coefficients, here without
/// their last refinement bit). A baseline JPEG interleaves every coefficient of a block in one
/// scan and cannot be cut this way.
///
/// The file is read in chunks with `pread` and scanned for markers; the stream is built only
/// from segments whose lengths are checked. Anything but a plain progressive Huffman frame of
/// one or three components, or a marker it does not expect, gives `nil`, and the caller
/// decodes the file as it is. Blocks.
package enum ProgressiveDCStream {
    /// How many bytes are read at a time while scanning entropy-coded data.
    static let chunkSize = 1 << 18
    /// How many segments (markers with a length) and scans the file may have.
    static let maxSegments = 1024
    /// The longest cut stream kept in memory; a file whose kept scans are longer (a photo has a
    /// few MB of them) is decoded as it is.
    static let maxStreamBytes = 32 << 20

    /// Whether a scan is kept: every DC scan, and each component's first pass over the AC bands
    /// from the first (`Ss` 1, `Ah` 0). libjpeg needs no AC coefficient at 1/8 scale, but when a
    /// component has none at all its block smoothing also re-estimates the DC from the
    /// neighbours', which moves samples by up to a dozen levels; one low-precision pass over the
    /// lowest bands (a sixth of a photo's data in jpegtran's scan script) keeps the DC exact.
    static func keeps(spectralStart: UInt8, successiveHigh: UInt8) -> Bool {
        spectralStart == 0 || (spectralStart == 1 && successiveHigh == 0)
    }

    /// The cut stream of the progressive JPEG at `path`, or `nil` (see the type's description),
    /// also when it would be longer than `limit` bytes.
    package static func stream(ofFileAt path: String, limit: Int = maxStreamBytes) -> [UInt8]? {
        FileBytes.reading(fileAt: path) { source in stream(of: source, limit: limit) }
    }

    /// As ``stream(ofFileAt:limit:)``, from a file already open.
    static func stream(of source: FileBytes, limit: Int = maxStreamBytes) -> [UInt8]? {
        var reader = MarkerReader(source: source, limit: limit)
        return reader.cut()
    }

    /// Walks the file's markers, copying what a DC-only decode needs into `output`.
    struct MarkerReader {
        let source: FileBytes
        let limit: Int
        var offset: Int64 = 0
        var output: [UInt8] = []
        var progressive = false

        init(source: FileBytes, limit: Int) {
            self.source = source
            self.limit = limit
        }

        var fileSize: Int64 { source.fileSize }

        mutating func cut() -> [UInt8]? {
            guard source.bytes(at: 0, count: 2) == [0xFF, 0xD8] else { return nil }
            output = [0xFF, 0xD8]
            offset = 2
            for _ in 0..<ProgressiveDCStream.maxSegments {
                guard output.count <= limit, let head = source.bytes(at: offset, count: 2), head[0] == 0xFF else { return nil }
                let marker = head[1]
                switch marker {
                case 0xD9:  // EOI
                    guard progressive else { return nil }
                    output += [0xFF, 0xD9]
                    return output
                case 0xC2:  // SOF2: progressive, Huffman, the only frame this helps
                    guard !progressive, let segment = segment(), JPEGHeaderReader.Frame(Array(segment.dropFirst(4))) != nil else { return nil }
                    progressive = true
                    output += segment
                case 0xDA:  // SOS: a scan, kept when a 1/8-scale decode needs it (`keeps`)
                    guard progressive, let header = segment(), header.count >= 4 + 1 else { return nil }
                    let components = Int(header[4])
                    guard (1...4).contains(components), header.count == 4 + 1 + 2 * components + 3 else { return nil }
                    let keep = ProgressiveDCStream.keeps(spectralStart: header[4 + 1 + 2 * components],
                                                         successiveHigh: header[4 + 3 + 2 * components] >> 4)
                    if keep { output += header }
                    guard scanEntropyData(keeping: keep) else { return nil }
                case 0xC4, 0xDB, 0xDD, 0xFE, 0xE0...0xEF:  // tables, restart interval, comments, APPn
                    guard let segment = segment() else { return nil }
                    output += segment
                default:  // other frames (baseline, lossless, arithmetic), DNL, stray markers
                    return nil
                }
            }
            return nil
        }

        /// The marker segment at `offset` (marker, length and body), moving past it.
        mutating func segment() -> [UInt8]? {
            guard let lengthBytes = source.bytes(at: offset + 2, count: 2) else { return nil }
            let length = Int(lengthBytes[0]) << 8 | Int(lengthBytes[1])
            guard length >= 2, offset + 2 + Int64(length) <= fileSize, let whole = source.bytes(at: offset, count: 2 + length) else { return nil }
            offset += 2 + Int64(length)
            return whole
        }

        /// Moves past a scan's entropy-coded data, up to the next marker that is not a byte
        /// stuffing (`FF 00`), a restart (`FF D0`–`FF D7`) or a fill byte; copies it when `keeping`.
        mutating func scanEntropyData(keeping: Bool) -> Bool {
            var buffer = [UInt8](repeating: 0, count: ProgressiveDCStream.chunkSize)
            while offset < fileSize {
                let count = Int(min(Int64(ProgressiveDCStream.chunkSize), fileSize - offset))
                let read = buffer.withUnsafeMutableBytes { pread(source.fd, $0.baseAddress!, count, off_t(offset)) }
                guard read > 1 else { return false }
                // A marker needs its second byte: the last byte of a chunk is looked at with the next.
                var end: Int?
                buffer.withUnsafeBytes { raw in
                    let bytes = raw.bindMemory(to: UInt8.self)
                    var index = 0
                    while index < read - 1 {
                        guard let found = memchr(raw.baseAddress! + index, 0xFF, read - 1 - index) else { break }
                        let at = raw.baseAddress!.distance(to: UnsafeRawPointer(found))
                        let next = bytes[at + 1]
                        if next == 0x00 || (0xD0...0xD7).contains(next) || next == 0xFF {
                            index = at + 1
                            continue
                        }
                        end = at
                        return
                    }
                }
                let taken = end ?? (read - 1)
                if keeping {
                    guard output.count + taken <= limit else { return false }
                    output += buffer[0..<taken]
                }
                offset += Int64(taken)
                if end != nil { return true }
            }
            return false
        }
    }
}
