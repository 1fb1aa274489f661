/// The identifier an iPhone gives both halves of a Live Photo: the still carries it in Apple's
/// EXIF maker note (tag `0x0011`, which ExifTool calls `MediaGroupUUID`), the clip as its
/// QuickTime tag `com.apple.quicktime.content.identifier`. Two files with one identifier were
/// taken together.
///
/// The value comes from a file, so it is kept only when it looks like one: 1 to
/// ``maximumLength`` letters, digits and hyphens (Apple writes an upper-case UUID).
public enum LivePhotoIdentifier {
    /// The longest identifier kept.
    public static let maximumLength = 64

    /// The QuickTime metadata key of a clip's identifier.
    static let quickTimeKey = "com.apple.quicktime.content.identifier"

    /// `text` when it is a well-formed identifier, else `nil`.
    public static func validated(_ text: String) -> String? {
        guard (1...maximumLength).contains(text.utf8.count),
              text.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else { return nil }
        return text
    }

    /// The identifier in an EXIF block: `Exif\0\0` and a TIFF structure (a JPEG's APP1 body), or
    /// the TIFF structure alone (what libvips gives for a HEIF). `nil` when the block has no
    /// Apple maker note, or its tag is missing, out of bounds or not well formed.
    static func reading(inEXIF block: [UInt8]) -> String? {
        let exifPrefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]
        let tiff = TIFFBlock(bytes: block.starts(with: exifPrefix) ? Array(block[6...]) : block)
        guard tiff.short(at: 2) == 42, let firstIFD = tiff.long(at: 4),
              let pointer = tiff.firstLoadedEntry(tagged: 0x8769, inIFDAt: Int(firstIFD)), pointer.format == 4,
              let exifIFD = tiff.long(at: pointer.valueOffset),
              let note = tiff.firstLoadedEntry(tagged: 0x927C, inIFDAt: Int(exifIFD)), note.format == 7
        else { return nil }
        return readingMakerNote(Array(tiff.bytes[note.valueOffset..<(note.valueOffset + note.byteCount)]))
    }

    /// The identifier in Apple's maker note: `Apple iOS\0`, a two-byte version, a byte order,
    /// then an IFD at byte 14 whose value offsets count from the note's first byte.
    static func readingMakerNote(_ note: [UInt8]) -> String? {
        guard note.count >= 16, note.starts(with: Array("Apple iOS\0".utf8)) else { return nil }
        let order: Bool
        switch (note[12], note[13]) {
        case (0x4D, 0x4D): order = false
        case (0x49, 0x49): order = true
        default: return nil
        }
        let block = TIFFBlock(bytes: note, littleEndian: order)
        guard let entry = block.firstLoadedEntry(tagged: 0x0011, inIFDAt: 14), entry.format == 2 else { return nil }
        var text = block.bytes[entry.valueOffset..<(entry.valueOffset + entry.byteCount)]
        if let end = text.firstIndex(of: 0) { text = text[..<end] }
        return validated(String(decoding: text, as: UTF8.self))
    }
}
