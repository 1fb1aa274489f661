/// Decides a media type from the first bytes of a file, never from its name.
///
/// Recognises the raster formats the store can thumbnail, a few common documents, and
/// text; everything else is `application/octet-stream`.
enum MediaTypeSniffer {
    /// The media type the bytes `head` (the start of a file) announce.
    static func mediaType(of head: [UInt8]) -> String {
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && Array(head[offset..<offset + signature.count]) == signature
        }
        func ascii(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }

        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if ascii("GIF87a") || ascii("GIF89a") { return "image/gif" }
        if ascii("RIFF") && ascii("WEBP", at: 8) { return "image/webp" }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "image/tiff" }
        if ascii("ftyp", at: 4), head.count >= 12 {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            switch brand {
            case "avif", "avis": return "image/avif"
            case "heic", "heix", "heim", "heis", "hevc", "hevx": return "image/heic"
            case "mif1", "msf1": return "image/heif"
            case "qt  ": return "video/quicktime"
            case "M4A ", "M4B ", "M4P ": return "audio/mp4"
            default: return "video/mp4"
            }
        }
        // "BM", then the file size and two reserved fields that are zero in every BMP (so text
        // starting with "BM" is not taken for one).
        if ascii("BM") && head.count > 14 && head[6..<10].allSatisfy({ $0 == 0 }) { return "image/bmp" }
        if ascii("%PDF-") { return "application/pdf" }
        if starts([0x50, 0x4B, 0x03, 0x04]) { return "application/zip" }
        if starts([0x1F, 0x8B]) { return "application/gzip" }
        return textType(of: head)
    }

    /// SVG, HTML, XML or plain text when `head` is valid UTF-8 without control bytes.
    private static func textType(of head: [UInt8]) -> String {
        guard !head.isEmpty else { return "application/octet-stream" }
        let allowedControls: Set<UInt8> = [0x09, 0x0A, 0x0C, 0x0D]
        guard !head.contains(where: { $0 < 0x20 && !allowedControls.contains($0) }) else {
            return "application/octet-stream"
        }
        var text = String(decoding: head, as: UTF8.self)
        // A cut in the middle of a multi-byte character at the end of `head` is not an error.
        if text.hasSuffix("\u{FFFD}") { text.removeLast() }
        guard !text.contains("\u{FFFD}") else { return "application/octet-stream" }
        let lowered = text.drop(while: { $0.isWhitespace || $0 == "\u{FEFF}" }).lowercased()
        if lowered.contains("<svg") { return "image/svg+xml" }
        if lowered.hasPrefix("<!doctype html") || lowered.hasPrefix("<html") { return "text/html" }
        if lowered.hasPrefix("<?xml") { return "application/xml" }
        return "text/plain"
    }

    /// Whether `mediaType` is a video the store reads with ffprobe and ffmpeg (MP4, QuickTime).
    static func isVideo(_ mediaType: String) -> Bool {
        mediaType == "video/mp4" || mediaType == "video/quicktime"
    }

    /// Whether `mediaType` is a document the store draws the first page of (PDF).
    static func isDocument(_ mediaType: String) -> Bool {
        mediaType == "application/pdf"
    }

    /// Whether attachments of `mediaType` have a picture: a thumbnail, a display image, a size.
    static func hasPicture(_ mediaType: String) -> Bool {
        isReadableRaster(mediaType) || isVideo(mediaType) || isDocument(mediaType)
    }

    /// Whether `mediaType` is a raster format whose header libvips may be asked to read.
    static func isReadableRaster(_ mediaType: String) -> Bool {
        ["image/jpeg", "image/png", "image/gif", "image/webp", "image/tiff",
         "image/heic", "image/heif", "image/avif"].contains(mediaType)
    }
}
