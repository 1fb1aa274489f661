/// Removes metadata chunks (EXIF, XMP, ICC) from an extended WebP file.
///
/// libvips 8.14 writes a small EXIF block into WebP even when asked to strip metadata; this
/// pass makes the promise "no metadata in derived images" hold whatever libvips does.
enum WebPMetadataStripper {
    private static let metadataChunks: Set<String> = ["EXIF", "XMP ", "ICCP"]
    /// VP8X flag bits for ICC (0x20), EXIF (0x08) and XMP (0x04).
    private static let metadataFlags: UInt8 = 0x20 | 0x08 | 0x04

    /// The same image without metadata chunks; `webp` unchanged when it is not a RIFF WebP.
    static func strip(_ webp: [UInt8]) -> [UInt8] {
        guard webp.count >= 12, fourCC(webp, 0) == "RIFF", fourCC(webp, 8) == "WEBP" else { return webp }
        var output = Array(webp[0..<12])
        var offset = 12
        while offset + 8 <= webp.count {
            let name = fourCC(webp, offset)
            let size = Int(webp[offset + 4]) | Int(webp[offset + 5]) << 8 | Int(webp[offset + 6]) << 16 | Int(webp[offset + 7]) << 24
            let end = min(webp.count, offset + 8 + size + (size & 1))
            if !metadataChunks.contains(name) {
                var chunk = Array(webp[offset..<end])
                if name == "VP8X", chunk.count > 8 { chunk[8] &= ~metadataFlags }
                output += chunk
            }
            offset = end
        }
        let riffSize = UInt32(output.count - 8)
        for index in 0..<4 { output[4 + index] = UInt8(truncatingIfNeeded: riffSize >> (8 * UInt32(index))) }
        return output
    }

    private static func fourCC(_ bytes: [UInt8], _ offset: Int) -> String {
        String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }
}
