import CVips

/// What a photo's EXIF says about when and with what it was taken, as far as the file says and
/// it can be read as such: each fact is `nil` when the file has none or it is not well formed.
/// The values come from the file, so they are checked and cut: printable text only, at most
/// ``maximumLength`` characters.
public struct CaptureFacts: Sendable, Equatable, Codable {
    /// When the photo was taken, `2008-04-19T13:43:16`, in the camera's own clock (EXIF
    /// `DateTimeOriginal`), with its offset when the file gives one (`+02:00`).
    public var capturedAt: String?
    /// The camera: its maker and model (`Canon EOS 400D DIGITAL`; the maker once).
    public var camera: String?
    /// The lens, when the file names it.
    public var lens: String?

    /// The longest fact kept.
    public static let maximumLength = 100

    /// Facts with the given values.
    public init(capturedAt: String? = nil, camera: String? = nil, lens: String? = nil) {
        self.capturedAt = capturedAt
        self.camera = camera
        self.lens = lens
    }

    /// The facts from libvips' EXIF fields, `field` reading one by name (`exif-ifd2-DateTimeOriginal`).
    static func read(_ field: (String) -> String?) -> CaptureFacts {
        let make = field("exif-ifd0-Make").flatMap(text)
        let model = field("exif-ifd0-Model").flatMap(text)
        var camera = model
        if let make, let model, !model.lowercased().hasPrefix(make.split(separator: " ").first.map { $0.lowercased() } ?? "") {
            camera = "\(make) \(model)"
        } else if model == nil {
            camera = make
        }
        return CaptureFacts(capturedAt: field("exif-ifd2-DateTimeOriginal").flatMap { time($0, offset: field("exif-ifd2-OffsetTimeOriginal")) },
                            camera: camera.map { String($0.prefix(maximumLength)) },
                            lens: field("exif-ifd2-LensModel").flatMap(text))
    }

    /// The value of a libvips EXIF string: `Canon (Canon, ASCII, 6 components, 6 bytes)` is
    /// `Canon`. Control characters go, spaces are trimmed; empty is `nil`.
    static func text(_ field: String) -> String? {
        var value = Substring(field)
        if field.hasSuffix(" bytes)") || field.hasSuffix(" byte)"), let open = lastOpening(in: field) {
            value = field[..<open]
        }
        let printable = String(String.UnicodeScalarView(value.unicodeScalars.filter { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }))
        let trimmed = printable.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
        return trimmed.isEmpty ? nil : String(String(trimmed).prefix(maximumLength))
    }

    /// Where the last ` (` of `text` starts.
    private static func lastOpening(in text: String) -> String.Index? {
        var index = text.endIndex
        while index > text.startIndex {
            index = text.index(before: index)
            if text[index] == "(", index > text.startIndex, text[text.index(before: index)] == " " { return text.index(before: index) }
        }
        return nil
    }

    /// `2008:04:19 13:43:16` as `2008-04-19T13:43:16` (and `+02:00` when `offset` is one);
    /// `nil` when it is not that shape.
    static func time(_ field: String, offset: String?) -> String? {
        guard let value = text(field) else { return nil }
        let digits = Array(value.utf8)
        let shape = Array("dddd:dd:dd dd:dd:dd".utf8)
        guard digits.count == shape.count,
              zip(digits, shape).allSatisfy({ $1 == UInt8(ascii: "d") ? (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) : $0 == $1 }),
              value.hasPrefix("0000") == false else { return nil }
        var iso = value
        iso.replaceSubrange(iso.index(iso.startIndex, offsetBy: 4)...iso.index(iso.startIndex, offsetBy: 4), with: "-")
        iso.replaceSubrange(iso.index(iso.startIndex, offsetBy: 7)...iso.index(iso.startIndex, offsetBy: 7), with: "-")
        iso.replaceSubrange(iso.index(iso.startIndex, offsetBy: 10)...iso.index(iso.startIndex, offsetBy: 10), with: "T")
        if let zone = offset.flatMap(text), zone.utf8.count == 6,
           zone.first == "+" || zone.first == "-", zone.dropFirst().allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ":") }) {
            iso += zone
        }
        return iso
    }
}

extension ImageProbe {
    /// The capture facts of the image file at `path` (only its header is read). A file no
    /// trusted loader takes, or without EXIF, has none. Blocks: call it off the cooperative pool.
    /// - Throws: ``ImagingError/libraryUnavailable(_:)`` when libvips cannot be started.
    public static func captureFacts(ofFileAt path: String) throws(ImagingError) -> CaptureFacts {
        try VipsRuntime.start()
        guard let loader = cvips_find_loader(path), allowedLoaders.contains(String(cString: loader)) else {
            cvips_clear_error()
            return CaptureFacts()
        }
        guard let image = cvips_open_header(path) else {
            cvips_clear_error()
            return CaptureFacts()
        }
        defer { cvips_unref(image) }
        return CaptureFacts.read { name in cvips_get_string(image, name).map { String(cString: $0) } }
    }
}
