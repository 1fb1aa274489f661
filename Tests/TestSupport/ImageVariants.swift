import Foundation

/// Real photos re-encoded into the formats the store must read, made with the `vips` tool.
public enum ImageVariants {
    /// A format variant: its file name and the `vips` arguments that make it from a source.
    public struct Variant: Sendable, CustomStringConvertible {
        public let name: String
        let arguments: @Sendable (_ source: String, _ output: String) -> [[String]]
        public var description: String { name }
    }

    /// JPEG (CMYK, grayscale), PNG (16-bit), GIF, TIFF and AVIF, each made from a corpus JPEG.
    public static let all: [Variant] = [
        Variant(name: "cmyk.jpg") { source, output in [["colourspace", source, output + ".v", "cmyk"], ["jpegsave", output + ".v", output]] },
        Variant(name: "grayscale.jpg") { source, output in [["colourspace", source, output, "b-w"]] },
        Variant(name: "rgb16.png") { source, output in [["colourspace", source, output, "rgb16"]] },
        Variant(name: "photo.gif") { source, output in [["copy", source, output]] },
        Variant(name: "photo.tif") { source, output in [["copy", source, output]] },
        Variant(name: "photo.avif") { source, output in [["heifsave", source, output, "--compression", "av1"]] },
    ]

    /// Makes `variant` from the corpus's `good/Garden.jpg` in `directory` and returns its URL.
    public static func make(_ variant: Variant, in directory: URL) async throws -> URL {
        let source = try Corpus.file("good/Garden.jpg").path(percentEncoded: false)
        let output = directory.appending(path: variant.name)
        for step in variant.arguments(source, output.path(percentEncoded: false)) {
            try await VipsTool.run(step)
        }
        return output
    }
}

/// Checks on encoded images that do not trust libvips to report on its own output.
public enum EncodedImage {
    /// Names of the metadata blocks found in the bytes: EXIF, XMP, GPS, IPTC, ICC.
    public static func metadataMarkers(in data: Data) -> [String] {
        let markers: [(String, [UInt8])] = [
            ("EXIF", Array("Exif\0\0".utf8)), ("EXIF", Array("eXIf".utf8)), ("EXIF", Array("EXIF".utf8)),
            ("XMP", Array("http://ns.adobe.com/xap/1.0/".utf8)), ("XMP", Array("XMP ".utf8)),
            ("GPS", Array("GPSLatitude".utf8)), ("IPTC", Array("Photoshop 3.0".utf8)), ("ICC", Array("ICC_PROFILE".utf8)),
        ]
        let bytes = [UInt8](data)
        return markers.filter { _, marker in
            bytes.count >= marker.count && (0...(bytes.count - marker.count)).contains { bytes[$0..<$0 + marker.count].elementsEqual(marker) }
        }.map(\.0)
    }
}
