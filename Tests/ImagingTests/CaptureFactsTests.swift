@testable import Imaging
import Testing
import TestSupport

/// When and with what a photo was taken, read from its EXIF through libvips; values from the
/// file are checked before they are shown.
@Suite("Capture facts from EXIF")
struct CaptureFactsTests {
    @Test("a camera's JPEG gives its capture time and camera, the maker named once", arguments: [
        ("special/baseline.jpg", "2008-04-19T13:43:16", "KONICA MINOLTA DiMAGE Z5"),
        ("special/orientation-6.jpg", "2008-04-20T19:12:06", "Canon EOS 400D DIGITAL"),
        ("fifty/photo-00.jpg", "2020-02-19T16:35:05", "SONY DSC-RX100M4"),
    ])
    func cameraJPEGsGiveTimeAndCamera(path: String, time: String, camera: String) throws {
        let facts = try ImageProbe.captureFacts(ofFileAt: try Corpus.file(path).path(percentEncoded: false))
        #expect(facts.capturedAt == time)
        #expect(facts.camera == camera)
    }

    @Test("a file without EXIF, or not an image, has no facts")
    func filesWithoutExifHaveNone() throws {
        #expect(try ImageProbe.captureFacts(ofFileAt: try Corpus.file("special/photo.png").path(percentEncoded: false)) == CaptureFacts())
        #expect(try ImageProbe.captureFacts(ofFileAt: try Corpus.file("bad/random.jpg").path(percentEncoded: false)) == CaptureFacts())
    }

    @Test("hostile EXIF text: control characters go, long values are cut, malformed times and offsets are dropped")
    func hostileValuesAreCheckedAndCut() {
        let fields: [String: String] = [
            "exif-ifd0-Make": "Evil\u{1B}[31m (Evil\u{1B}[31m, ASCII, 10 components, 10 bytes)",
            "exif-ifd0-Model": String(repeating: "M", count: 500) + " (x, ASCII, 500 components, 500 bytes)",
            "exif-ifd2-DateTimeOriginal": "2008:04:19 13:43:16 (2008:04:19 13:43:16, ASCII, 20 components, 20 bytes)",
            "exif-ifd2-OffsetTimeOriginal": "+02:00<script> (x, ASCII, 7 components, 7 bytes)",
            "exif-ifd2-LensModel": "   \u{0}\u{7}  (x, ASCII, 3 components, 3 bytes)",
        ]
        let facts = CaptureFacts.read { fields[$0] }
        #expect(facts.camera?.hasPrefix("Evil[31m MMM") == true)
        #expect(facts.camera?.count == CaptureFacts.maximumLength)
        #expect(facts.capturedAt == "2008-04-19T13:43:16", "an offset that is not ±hh:mm is left out")
        #expect(facts.lens == nil)
        #expect(CaptureFacts.time("2008:04:19 13:43:16", offset: "-05:00") == "2008-04-19T13:43:16-05:00")
        for malformed in ["0000:00:00 00:00:00", "2008-04-19 13:43:16", "2008:04:19", "20O8:04:19 13:43:16", ""] {
            #expect(CaptureFacts.time(malformed, offset: nil) == nil, "\(malformed)")
        }
    }
}
