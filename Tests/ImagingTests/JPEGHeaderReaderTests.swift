import Foundation
import Imaging
import Testing
import TestSupport

/// The JPEG header reader answers without libvips, and only ever what libvips answers: every
/// corpus JPEG, hand-made EXIF blocks of every shape libexif reads, and thousands of damaged
/// headers are read both ways and compared.
@Suite("JPEG headers without libvips", .timeLimit(.minutes(3)))
struct JPEGHeaderReaderTests {
    /// What libvips says of the file at `url`, or `nil` when it refuses it.
    static func libvips(_ url: URL) -> ImageHeader? {
        do { return try ImageProbe.libvipsHeader(ofFileAt: url.path(percentEncoded: false)) } catch { return nil }
    }

    static func jpegs(in folder: String) throws -> [URL] {
        try Corpus.files(in: folder).filter { url in
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            return try handle.read(upToCount: 2) == Data([0xFF, 0xD8])
        }
    }

    @Test("every corpus JPEG reads the same header without libvips as with it; only CMYK is left to libvips")
    func corpusJPEGsMatchLibvips() throws {
        var answered = 0
        for url in try ["good", "special", "fifty", "bad"].flatMap({ try Self.jpegs(in: $0) }) {
            let native = JPEGHeaderReader.header(ofFileAt: url.path(percentEncoded: false))
            let expected = Self.libvips(url)
            if url.lastPathComponent == "cmyk.jpg" || url.lastPathComponent == "random.jpg" {
                #expect(native == nil, "\(url.lastPathComponent) is left to libvips")
                continue
            }
            #expect(native != nil, "\(url.lastPathComponent) was left to libvips")
            #expect(native == expected, "\(url.lastPathComponent): \(String(describing: native)) against libvips' \(String(describing: expected))")
            answered += 1
        }
        #expect(answered >= 60, "only \(answered) corpus JPEGs were read")
    }

    @Test("ImageProbe answers a JPEG with the same header, and still refuses what libvips refuses")
    func probeKeepsItsAnswers() throws {
        let seed = try Corpus.file("special/orientation-6.jpg")
        #expect(try ImageProbe.header(ofFileAt: seed.path(percentEncoded: false)) == Self.libvips(seed))
        let directory = try TemporaryDirectory("jpeg-probe")
        let headerOnly = directory.appending("sof-only.jpg")
        // SOI, then a frame header and the end: no scan, so libjpeg finds no image.
        try Data([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x10, 0x00, 0x10, 0x01, 0x01, 0x11, 0x00, 0xFF, 0xD9])
            .write(to: headerOnly)
        #expect(throws: ImagingError.self) { try ImageProbe.header(ofFileAt: headerOnly.path(percentEncoded: false)) }
    }

    // MARK: - EXIF orientation, shape by shape

    /// One IFD entry: tag, TIFF format, count and its four value bytes (already in byte order).
    struct Entry {
        var tag: UInt16 = 0x0112  // Orientation
        var format: UInt16 = 3
        var count: UInt32 = 1
        var value: [UInt8]
    }

    /// An APP1 segment holding a TIFF structure with `ifd0` and, when given, `ifd1`.
    static func exifSegment(littleEndian: Bool, ifd0: [Entry], ifd1: [Entry]? = nil, declaredIFD0Count: Int? = nil) -> [UInt8] {
        func short(_ value: UInt16) -> [UInt8] { littleEndian ? [UInt8(value & 0xFF), UInt8(value >> 8)] : [UInt8(value >> 8), UInt8(value & 0xFF)] }
        func long(_ value: UInt32) -> [UInt8] {
            littleEndian ? short(UInt16(value & 0xFFFF)) + short(UInt16(value >> 16)) : short(UInt16(value >> 16)) + short(UInt16(value & 0xFFFF))
        }
        func ifd(_ entries: [Entry], declared: Int, next: UInt32) -> [UInt8] {
            short(UInt16(declared)) + entries.flatMap { short($0.tag) + short($0.format) + long($0.count) + $0.value } + long(next)
        }
        let ifd0Size = 2 + 12 * ifd0.count + 4
        var tiff = (littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]) + short(42) + long(8)
        tiff += ifd(ifd0, declared: declaredIFD0Count ?? ifd0.count, next: ifd1 == nil ? 0 : UInt32(8 + ifd0Size))
        if let ifd1 { tiff += ifd(ifd1, declared: ifd1.count, next: 0) }
        let body = Array("Exif".utf8) + [0, 0] + tiff
        return [0xFF, 0xE1] + [UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
    }

    /// `special/baseline.jpg` with `segments` inserted after its SOI, cut shortly after its
    /// first scan begins (both readers only need the header).
    static func jpeg(inserting segments: [[UInt8]]) throws -> [UInt8] {
        let base = try [UInt8](Data(contentsOf: Corpus.file("special/baseline.jpg")))
        return Array(base[0..<2]) + segments.flatMap { $0 } + Array(base[2..<min(base.count, Self.headerEnd(of: base) + 4096)])
    }

    /// Where the first scan's header ends (the offset after the SOS segment), or the whole length.
    static func headerEnd(of bytes: [UInt8]) -> Int {
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF {
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if bytes[index + 1] == 0xDA { return index + 2 + length }
            index += 2 + length
        }
        return bytes.count
    }

    static func shortValue(_ value: UInt16, littleEndian: Bool) -> [UInt8] {
        (littleEndian ? [UInt8(value & 0xFF), UInt8(value >> 8)] : [UInt8(value >> 8), UInt8(value & 0xFF)]) + [0, 0]
    }

    static func longValue(_ value: UInt32, littleEndian: Bool) -> [UInt8] {
        let bytes = [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
        return littleEndian ? bytes.reversed() : bytes
    }

    /// Every EXIF shape below, and whether the reader must answer it itself (`plain`): a short
    /// of 1–8 in IFD0, or no orientation libexif loads there. The rest (other types, values
    /// libvips reads as 1) it may leave to libvips, but never answer differently.
    static func exifCases() -> [(name: String, segments: [[UInt8]], plain: Bool)] {
        var cases: [(String, [[UInt8]], Bool)] = []
        for littleEndian in [true, false] {
            let order = littleEndian ? "II" : "MM"
            func short(_ value: UInt16) -> [UInt8] { shortValue(value, littleEndian: littleEndian) }
            func long(_ value: UInt32) -> [UInt8] { longValue(value, littleEndian: littleEndian) }
            func one(_ entries: [Entry], ifd1: [Entry]? = nil, declared: Int? = nil) -> [[UInt8]] {
                [exifSegment(littleEndian: littleEndian, ifd0: entries, ifd1: ifd1, declaredIFD0Count: declared)]
            }
            let camera = Entry(tag: 0x010F, format: 2, count: 4, value: Array("Cam\0".utf8))
            for value: UInt16 in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 255, 0xFFFF] {
                cases.append(("\(order) SHORT \(value)", one([Entry(value: short(value))]), (1...8).contains(value)))
                cases.append(("\(order) SSHORT \(value)", one([Entry(format: 8, value: short(value))]), false))
                cases.append(("\(order) BYTE \(value)", one([Entry(format: 1, value: [UInt8(value & 0xFF), 0, 0, 0])]), false))
                cases.append(("\(order) only in IFD1, \(value)", one([camera], ifd1: [Entry(value: short(value))]), true))
            }
            for value: UInt32 in [3, 6, 70_000, 0xFFFF_FFFF] {
                cases.append(("\(order) LONG \(value)", one([Entry(format: 4, value: long(value))]), false))
                cases.append(("\(order) SLONG \(value)", one([Entry(format: 9, value: long(value))]), false))
            }
            let six = short(6)
            cases.append(("\(order) ASCII orientation", one([Entry(format: 2, count: 2, value: Array("6\0\0\0".utf8))]), false))
            cases.append(("\(order) no components", one([Entry(count: 0, value: six)], ifd1: [Entry(value: short(3))]), true))
            cases.append(("\(order) unknown format", one([Entry(format: 13, value: six)], ifd1: [Entry(value: short(8))]), true))
            cases.append(("\(order) an unloadable entry, then a short", one([Entry(format: 13, value: six), Entry(value: short(5))]), true))
            cases.append(("\(order) value outside the block", one([Entry(count: 4, value: long(60_000))]), true))
            cases.append(("\(order) three shorts stored at the IFD", one([Entry(count: 3, value: long(8))]), false))
            cases.append(("\(order) two shorts", one([Entry(count: 2, value: Array(short(5).prefix(2)) + Array(short(7).prefix(2)))]), true))
            cases.append(("\(order) IFD0 declaring more entries than fit", one([Entry(value: six)], declared: 400), true))
            cases.append(("\(order) second orientation in IFD0", one([Entry(value: six), Entry(value: short(3))]), true))
            cases.append(("\(order) second EXIF block ignored", one([camera]) + one([Entry(value: six)]), true))
        }
        cases.append(("not TIFF", [[0xFF, 0xE1, 0x00, 0x12] + Array("Exif".utf8) + [0, 0] + Array("XX\0*\0\0\0\u{8}".utf8) + [0, 0]], true))
        cases.append(("Exif without its zero bytes", [[0xFF, 0xE1, 0x00, 0x10] + Array("ExifII*\0".utf8) + [8, 0, 0, 0, 0, 0]], true))
        cases.append(("XMP, not EXIF", [[0xFF, 0xE1, 0x00, 0x0C] + Array("http://ns".utf8) + [0]], true))
        return cases
    }

    @Test("an EXIF orientation of every shape libexif reads is read as libvips reads it, or left to libvips")
    func exifShapesMatchLibvips() throws {
        let directory = try TemporaryDirectory("jpeg-exif")
        var orientations: Set<Int> = []
        for (index, exifCase) in Self.exifCases().enumerated() {
            let url = directory.appending("case-\(index).jpg")
            try Data(try Self.jpeg(inserting: exifCase.segments)).write(to: url)
            let native = JPEGHeaderReader.header(ofFileAt: url.path(percentEncoded: false))
            let expected = Self.libvips(url)
            if exifCase.plain { #expect(native != nil, "\(exifCase.name): left to libvips") }
            if let native {
                #expect(native == expected, "\(exifCase.name): \(native) against libvips' \(String(describing: expected))")
                orientations.insert(native.orientation)
            }
        }
        #expect(orientations == Set(1...8), "the cases reach every orientation: \(orientations.sorted())")
    }

    // MARK: - Damaged headers

    @Test("a damaged header is never answered differently from libvips: 3,000 seeded mutations of three photos")
    func damagedHeadersNeverDisagree() throws {
        let directory = try TemporaryDirectory("jpeg-mutants")
        var (answered, leftToLibvips) = (0, 0)
        for name in ["special/baseline.jpg", "special/orientation-6.jpg", "special/progressive.jpg"] {
            let original = try [UInt8](Data(contentsOf: Corpus.file(name)))
            let end = Self.headerEnd(of: original)
            let base = Array(original[0..<min(original.count, end + 4096)])
            let exif = (0..<max(0, end - 6)).first { base[$0..<($0 + 6)].elementsEqual(Array("Exif".utf8) + [0, 0]) }
            var random = SplitMix(seed: UInt64(name.utf8.reduce(0) { $0 &* 31 &+ Int($1) }.magnitude))
            for round in 0..<1_000 {
                var mutant = base
                switch round % 5 {
                case 0:  // one byte of the header anywhere
                    mutant[Int.random(in: 0..<end, using: &random)] = UInt8.random(in: 0...255, using: &random)
                case 1:  // a marker or length byte: the two bytes after an 0xFF
                    let markers = (0..<(end - 1)).filter { base[$0] == 0xFF }
                    let at = markers[Int.random(in: 0..<markers.count, using: &random)] + Int.random(in: 1...3, using: &random)
                    mutant[min(at, end - 1)] = [0x00, 0x01, 0xFF, 0xC3, 0xD9, 0xDA, UInt8.random(in: 0...255, using: &random)].randomElement(using: &random)!
                case 2:  // cut inside the header
                    mutant = Array(base[0..<Int.random(in: 0..<end, using: &random)])
                case 3:  // the TIFF structure at the start of the EXIF block: byte order, IFD0, its entries
                    let start = exif ?? 0
                    for _ in 0..<Int.random(in: 1...2, using: &random) {
                        mutant[Int.random(in: start..<min(end, start + 160), using: &random)] = [0x00, 0x01, 0x03, 0x06, 0x09, 0x12, 0xFF,
                            UInt8.random(in: 0...255, using: &random)].randomElement(using: &random)!
                    }
                default:  // several bytes at once
                    for _ in 0..<Int.random(in: 2...8, using: &random) {
                        mutant[Int.random(in: 0..<end, using: &random)] = UInt8.random(in: 0...255, using: &random)
                    }
                }
                let url = directory.appending("mutant.jpg")
                try Data(mutant).write(to: url)
                guard let native = JPEGHeaderReader.header(ofFileAt: url.path(percentEncoded: false)) else {
                    leftToLibvips += 1
                    continue
                }
                answered += 1
                let expected = Self.libvips(url)
                #expect(native == expected, "\(name), mutation \(round): \(native) against libvips' \(String(describing: expected))")
            }
        }
        // Both ways are taken, so the comparison above means something.
        #expect(answered > 300 && leftToLibvips > 300, "answered \(answered), left to libvips \(leftToLibvips)")
    }
}
