import CWebPMux

/// Removes metadata chunks (EXIF, XMP, ICC) from a WebP file, with libwebpmux.
///
/// libvips 8.14 writes a small EXIF block into WebP even when asked to strip metadata; this
/// pass makes the promise "no metadata in derived images" hold whatever libvips does.
enum WebPMetadataStripper {
    /// The same image without metadata chunks; `webp` unchanged when libwebpmux cannot read it.
    static func strip(_ webp: [UInt8]) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = webp.withUnsafeBufferPointer { input in
            cwebpmux_strip_metadata(input.baseAddress, input.count, &output, &length)
        }
        guard status == 0, let output else { return webp }
        defer { cwebpmux_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }
}
