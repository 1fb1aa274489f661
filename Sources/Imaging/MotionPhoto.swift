/// An Android motion photo: a JPEG whose XMP says an MP4 clip follows the picture in the same
/// file (Google's format: `GCamera:MotionPhoto="1"` and a `Container:Directory` item with
/// `Item:Semantic="MotionPhoto"` and its `Item:Length`; the older `GCamera:MicroVideo="1"` with
/// `GCamera:MicroVideoOffset`). Either way the clip is the file's last *length* bytes.
///
/// The XMP is someone else's text: it is scanned, not parsed, within its segment (at most
/// 64 KiB); a length is at most 18 digits; and the claim holds only when the bytes it points to
/// begin an ISO media file (`ftyp` at offset 4) and leave the picture at least a JPEG header.
public enum MotionPhoto {
    /// The smallest picture before the clip: SOI, a frame header and a scan, at the least.
    public static let smallestPicture: Int64 = 128

    /// Where the clip starts in a file of `fileSize` bytes whose XMP segment body is `xmp`
    /// (`check` reading 8 bytes at an offset, to confirm the clip is there), or `nil` when the
    /// XMP claims none, or a clip that is not there.
    static func videoOffset(xmp: [UInt8], fileSize: Int64, check: (Int64) -> [UInt8]?) -> Int64? {
        let length: Int64?
        if xmp.contains(subsequence: Array(":MotionPhoto=\"1\"".utf8)) {
            length = itemLength(ofSemantic: "MotionPhoto", in: xmp)
        } else if xmp.contains(subsequence: Array(":MicroVideo=\"1\"".utf8)) {
            length = attribute(":MicroVideoOffset", in: xmp[...])
        } else {
            return nil
        }
        guard let length, length >= 8, length <= fileSize - smallestPicture else { return nil }
        let offset = fileSize - length
        guard let head = check(offset), head.count == 8, head[4...].elementsEqual(Array("ftyp".utf8)) else { return nil }
        return offset
    }

    /// The `Length` of the directory item whose `Semantic` is `semantic`: the attributes of the
    /// element holding that semantic (from its `<` to its `>`).
    static func itemLength(ofSemantic semantic: String, in xmp: [UInt8]) -> Int64? {
        guard let at = xmp.firstRange(of: Array(":Semantic=\"\(semantic)\"".utf8)) else { return nil }
        let start = xmp[..<at.lowerBound].lastIndex(of: UInt8(ascii: "<")) ?? xmp.startIndex
        let end = xmp[at.upperBound...].firstIndex(of: UInt8(ascii: ">")) ?? xmp.endIndex
        return attribute(":Length", in: xmp[start..<end])
    }

    /// The value of `name="digits"` in `text` as a number (1 to 18 digits), else `nil`.
    static func attribute(_ name: String, in text: ArraySlice<UInt8>) -> Int64? {
        guard let at = text.firstRange(of: Array("\(name)=\"".utf8)) else { return nil }
        let digits = text[at.upperBound...].prefix { (0x30...0x39).contains($0) }
        guard (1...18).contains(digits.count), text[digits.endIndex...].first == UInt8(ascii: "\"") else { return nil }
        return digits.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
    }

    /// The XMP namespace that begins an APP1 segment holding XMP.
    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
}

extension Collection where Element == UInt8 {
    /// Whether `pattern` occurs in the bytes.
    func contains(subsequence pattern: [UInt8]) -> Bool { firstRange(of: pattern) != nil }
}
