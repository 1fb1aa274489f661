/// The EXIF orientation in a JPEG's APP1 block, as libvips (through libexif) reads it, when
/// that answer is plain.
///
/// libexif reads the TIFF structure leniently: an IFD that runs past the block keeps the
/// entries that fit, an entry whose value lies outside the block is dropped, and of two
/// entries with one tag the first that loaded counts. libvips then reads IFD0's orientation
/// only. Beyond that, libexif converts wrongly typed values and libvips reads the result as
/// text (an ASCII "6" counts, a long of 70,000 becomes 4,464 and then 1), so for any
/// orientation but a short of 1–8 the answer is ``Reading/unsure``, and the caller asks libvips.
enum ExifOrientation {
    /// The orientation tag.
    static let tag: UInt16 = 0x0112

    /// What an EXIF block says of the orientation.
    enum Reading: Equatable {
        /// IFD0 holds no orientation libexif loads: libvips reads 1.
        case absent
        /// A short of 1–8 in IFD0.
        case orientation(Int)
        /// Anything else: leave it to libvips.
        case unsure
    }

    /// The orientation in `block`, an APP1 body beginning `Exif`.
    static func reading(inAPP1 block: [UInt8]) -> Reading {
        // libexif finds no EXIF without `Exif\0\0`, a byte order and TIFF's 42; libvips then reads 1.
        guard block.count >= 14, block[0..<6].elementsEqual([0x45, 0x78, 0x69, 0x66, 0x00, 0x00]) else { return .absent }
        let tiff = TIFFBlock(bytes: Array(block[6...]))
        guard tiff.short(at: 2) == 42 else { return .absent }
        guard let firstIFD = tiff.long(at: 4), let entry = tiff.firstLoadedEntry(tagged: tag, inIFDAt: Int(firstIFD)) else { return .absent }
        guard entry.format == 3, let value = tiff.short(at: entry.valueOffset), (1...8).contains(value) else { return .unsure }
        return .orientation(Int(value))
    }
}

/// The TIFF structure inside an EXIF block: a byte order, then IFDs of 12-byte entries.
struct TIFFBlock {
    let bytes: [UInt8]
    /// Whether numbers are little-endian (`II`); big-endian is `MM`.
    let littleEndian: Bool?

    init(bytes: [UInt8]) {
        self.bytes = bytes
        switch (bytes.first, bytes.dropFirst().first) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: littleEndian = nil
        }
    }

    /// A block whose byte order is known from elsewhere (a maker note says it after a header).
    init(bytes: [UInt8], littleEndian: Bool) {
        self.bytes = bytes
        self.littleEndian = littleEndian
    }

    /// One IFD entry whose value lies inside the block.
    struct Entry {
        let format: UInt16
        let valueOffset: Int
        /// The bytes its values take, all inside the block.
        let byteCount: Int
    }

    func short(at offset: Int) -> UInt16? {
        guard let littleEndian, offset >= 0, offset + 2 <= bytes.count else { return nil }
        let (a, b) = (UInt16(bytes[offset]), UInt16(bytes[offset + 1]))
        return littleEndian ? b << 8 | a : a << 8 | b
    }

    func long(at offset: Int) -> UInt32? {
        guard let high = short(at: offset + (littleEndian == true ? 2 : 0)),
              let low = short(at: offset + (littleEndian == true ? 0 : 2)) else { return nil }
        return UInt32(high) << 16 | UInt32(low)
    }

    /// Bytes per value of a TIFF format; 0 for a format libexif does not know.
    static func size(ofFormat format: UInt16) -> Int {
        switch format {
        case 1, 2, 6, 7: 1  // BYTE, ASCII, SBYTE, UNDEFINED
        case 3, 8: 2  // SHORT, SSHORT
        case 4, 9, 11: 4  // LONG, SLONG, FLOAT
        case 5, 10, 12: 8  // RATIONAL, SRATIONAL, DOUBLE
        default: 0
        }
    }

    /// The first entry with `tag` in the IFD at `offset` that libexif would load: the table is
    /// cut to the entries that fit, and an entry whose values do not lie inside is skipped.
    func firstLoadedEntry(tagged tag: UInt16, inIFDAt offset: Int) -> Entry? {
        guard offset >= 0, let declared = short(at: offset) else { return nil }
        let table = offset + 2
        let count = min(Int(declared), max(0, (bytes.count - table) / 12))
        for index in 0..<count {
            let entry = table + 12 * index
            guard short(at: entry) == tag, let format = short(at: entry + 2), let components = long(at: entry + 4) else { continue }
            let size = Self.size(ofFormat: format) * Int(components)
            guard size > 0 else { continue }
            let valueOffset = size > 4 ? Int(long(at: entry + 8) ?? UInt32.max) : entry + 8
            guard valueOffset + size <= bytes.count else { continue }
            return Entry(format: format, valueOffset: valueOffset, byteCount: size)
        }
        return nil
    }
}
