import Foundation
import Imaging
import Testing
import TestSupport

@Suite("Image header probe", .timeLimit(.minutes(3)))
struct ImageProbeTests {
    /// Width×height per corpus path, from the corpus's own MANIFEST.tsv (measured by vipsheader).
    static func manifestDimensions() throws -> [String: String] {
        let manifest = try String(contentsOf: Corpus.file("MANIFEST.tsv"), encoding: .utf8)
        var result: [String: String] = [:]
        for line in manifest.split(separator: "\n") {
            let fields = line.split(separator: "\t").map(String.init)
            if fields.count == 5 { result[fields[4]] = fields[2] }
        }
        return result
    }

    @Test("every good corpus image reports the size vipsheader reports", arguments: Corpus.goodNames)
    func goodImageHeaderMatchesManifest(name: String) throws {
        let header = try ImageProbe.header(ofFileAt: Corpus.file("good/\(name)").path(percentEncoded: false))
        let expected = try Self.manifestDimensions()["good/\(name)"]
        #expect("\(header.width)x\(header.height)" == expected)
        #expect(header.frameCount >= 1)
    }

    @Test("EXIF orientation 6 is read and swaps the displayed width and height")
    func orientationSixIsTransposed() throws {
        let header = try ImageProbe.header(ofFileAt: Corpus.file("special/orientation-6.jpg").path(percentEncoded: false))
        #expect(header.orientation == 6)
        #expect(header.width > header.height)
        #expect(header.displayWidth < header.displayHeight)
    }

    @Test("HEIC and PNG are recognised by their loaders")
    func heicAndPNGFormats() throws {
        #expect(try ImageProbe.header(ofFileAt: Corpus.file("special/photo.heic").path(percentEncoded: false)).format == .heif)
        #expect(try ImageProbe.header(ofFileAt: Corpus.file("special/photo.png").path(percentEncoded: false)).format == .png)
        #expect(try ImageProbe.header(ofFileAt: Corpus.file("special/seed-3.7mb.jpg").path(percentEncoded: false)).format == .jpeg)
    }

    @Test("a decompression bomb's header is read without decoding its 900 megapixels")
    func bombHeaderIsCheap() throws {
        let header = try ImageProbe.header(ofFileAt: Corpus.file("bad/bomb.png").path(percentEncoded: false))
        #expect(header.pixelCount == 900_000_000)
    }

    @Test("files that are not images give a typed error", arguments: ["empty.jpg", "random.jpg", "text.png", "script.svg"])
    func nonImagesAreRejected(name: String) throws {
        #expect(throws: ImagingError.self) {
            try ImageProbe.header(ofFileAt: Corpus.file("bad/\(name)").path(percentEncoded: false))
        }
    }
}

@Suite("Only the allowed loaders read a file", .timeLimit(.minutes(3)))
struct LoaderAllowListTests {
    @Test("files other libvips loaders would read are refused before any loader opens them",
          arguments: [("matrix.mat", "2 2\n1 2\n3 4\n"), ("image.csv", "1,2,3\n4,5,6\n"), ("image.ppm", "P3\n1 1\n255\n255 0 0\n"),
                      ("image.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>")])
    func otherFormatsAreRefused(name: String, contents: String) throws {
        let directory = try TemporaryDirectory("loaders")
        let file = directory.appending(name)
        try Data(contents.utf8).write(to: file)
        #expect(throws: ImagingError.unsupportedFormat(path: file.path(percentEncoded: false))) {
            try ImageProbe.header(ofFileAt: file.path(percentEncoded: false))
        }
    }

    @Test("every format the store thumbnails has an allowed loader",
          arguments: ["special/baseline.jpg", "special/photo.png", "special/photo.webp", "special/photo.heic", "special/photo.avif",
                      "special/photo.tiff", "special/photo-16bit.png", "special/cmyk.jpg"])
    func storeFormatsAreAllowed(path: String) throws {
        _ = try ImageProbe.header(ofFileAt: try Corpus.file(path).path(percentEncoded: false))
    }

    @Test("the header tells how much memory a full decode takes: width × height × bands × bytes per band")
    func decodedSizeComesFromTheHeader() throws {
        let sixteenBit = try ImageProbe.header(ofFileAt: try Corpus.file("special/photo-16bit.png").path(percentEncoded: false))
        #expect(sixteenBit.bytesPerBand == 2)
        #expect(sixteenBit.decodedByteCount == Int64(sixteenBit.width * sixteenBit.height * sixteenBit.bands * 2))
        let cmyk = try ImageProbe.header(ofFileAt: try Corpus.file("special/cmyk.jpg").path(percentEncoded: false))
        #expect(cmyk.bands == 4 && cmyk.bytesPerBand == 1)
    }

    @Test("a render whose full decode would pass the memory bound is refused from the header")
    func memoryBoundIsCheckedFirst() throws {
        let path = try Corpus.file("special/photo-16bit.png").path(percentEncoded: false)
        let header = try ImageProbe.header(ofFileAt: path)
        var options = ThumbnailRenderer.Options()
        options.limits.maximumDecodedBytes = header.decodedByteCount - 1
        #expect(throws: ImagingError.tooMuchMemory(path: path, bytes: header.decodedByteCount, limit: header.decodedByteCount - 1)) {
            try ThumbnailRenderer.render(fileAt: path, maxPixelSize: 200, options: options)
        }
        options.limits.maximumDecodedBytes = header.decodedByteCount
        #expect(try ThumbnailRenderer.render(fileAt: path, maxPixelSize: 200, options: options).width == 200)
    }
}

@Suite("libvips loads only the modules the store reads", .timeLimit(.minutes(3)))
struct VipsModuleTests {
    /// The shared objects this process has mapped, by file name.
    static func mappedLibraries() throws -> Set<String> {
        // Read to the end: /proc reports a size of 0, and a read by that size stops early.
        let handle = try FileHandle(forReadingFrom: URL(filePath: "/proc/self/maps"))
        defer { try? handle.close() }
        let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        return Set(maps.split(separator: "\n").compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).last.flatMap { $0.hasPrefix("/") ? String($0.split(separator: "/").last!) : nil }
        })
    }

    @Test("after libvips starts and reads a HEIC, its HEIF module is mapped and the ImageMagick, OpenSlide, Poppler and JPEG XL modules are not")
    func onlyTheHEIFModuleIsLoaded() throws {
        #expect(try ImageProbe.header(ofFileAt: Corpus.file("special/photo.heic").path(percentEncoded: false)).format == .heif)
        #expect(try ImageProbe.header(ofFileAt: Corpus.file("special/photo.avif").path(percentEncoded: false)).format == .avif)
        #expect(getenv("VIPSHOME") == nil, "the environment programs started later see is the one given")
        let mapped = try Self.mappedLibraries()
        #expect(mapped.contains { $0.hasPrefix("libvips.so") })
        for module in ["vips-magick.so", "vips-openslide.so", "vips-poppler.so", "vips-jxl.so"] {
            #expect(!mapped.contains(module), "\(module) is mapped")
        }
        // Debian builds HEIF as a module; where libvips has it inside, there is no file to map.
        let libraries = "/usr/lib/x86_64-linux-gnu"
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: libraries)) ?? []
        if folders.contains(where: { $0.hasPrefix("vips-modules-") && FileManager.default.fileExists(atPath: "\(libraries)/\($0)/vips-heif.so") }) {
            #expect(mapped.contains("vips-heif.so"))
        }
    }
}
