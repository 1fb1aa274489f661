import Foundation

/// Decides how an original is handed to a browser: images it can only display go inline;
/// anything that could run (SVG, HTML, XML, PDF) or that we do not know is a download.
enum ContentDisposition {
    /// Raster types a browser renders as a picture and nothing more.
    static let inlineTypes: Set<String> = [
        "image/jpeg", "image/png", "image/gif", "image/webp", "image/avif", "image/bmp",
    ]

    /// Whether `mediaType` may be shown inline.
    static func isInline(_ mediaType: String) -> Bool { inlineTypes.contains(mediaType.lowercased()) }

    /// The `Content-Disposition` value for `filename`: `inline` or `attachment`, with an ASCII
    /// fallback name and the UTF-8 name in `filename*` (RFC 6266).
    static func header(for mediaType: String, filename: String) -> String {
        let kind = isInline(mediaType) ? "inline" : "attachment"
        let ascii = String(filename.unicodeScalars.map { scalar -> Character in
            (0x20..<0x7F).contains(scalar.value) && scalar != "\"" && scalar != "\\" ? Character(scalar) : "_"
        })
        let encoded = filename.addingPercentEncoding(withAllowedCharacters: .rfc5987) ?? ascii
        return "\(kind); filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"
    }
}

extension CharacterSet {
    /// `attr-char` of RFC 5987: what may stand unescaped in `filename*`.
    static let rfc5987 = CharacterSet(charactersIn:
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$&+-.^_`|~")
}
