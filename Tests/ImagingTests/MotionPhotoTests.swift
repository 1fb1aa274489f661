@testable import Imaging
import Foundation
import Testing
import TestSupport

/// Android motion photos: the clip after the picture is found from the photo's XMP (by our
/// JPEG reader and by libvips alike), checked where it is claimed to be, and read by ffprobe
/// through `subfile` as if it were a file of its own.
@Suite("Android motion photos", .timeLimit(.minutes(1)))
struct MotionPhotoTests {
    static let clipBytes: Int64 = 596_359  // video/clip-h264.mp4, appended by the corpus builder

    @Test(arguments: ["PXL_20240501_102030.MP.jpg", "MVIMG_20240501_102030.jpg"])
    func bothFormatsNameTheClipAtTheEndAndBothReadersAgree(_ name: String) throws {
        let path = try Corpus.file("live/\(name)").path(percentEncoded: false)
        let size = Int64(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0)
        let clip = try Data(contentsOf: try Corpus.file("video/clip-h264.mp4"))
        let ours = try #require(JPEGHeaderReader.header(ofFileAt: path))
        #expect(ours.embeddedVideoOffset == size - Int64(clip.count))
        #expect(ours == (try ImageProbe.libvipsHeader(ofFileAt: path)))
    }

    @Test func ffprobeReadsTheClipInsideThePhoto() async throws {
        let path = try Corpus.file("live/PXL_20240501_102030.MP.jpg").path(percentEncoded: false)
        let offset = try #require(try ImageProbe.header(ofFileAt: path).embeddedVideoOffset)
        let header = try await OwnThread.run { try VideoProbe.header(ofFileAt: path, startingAt: offset) }
        #expect((header.codec, header.width, header.height, header.duration) == ("h264", 1280, 720, 3))
    }

    @Test func aPhotoWithoutSuchXMPHasNoClip() throws {
        for name in ["special/baseline.jpg", "special/orientation-6.jpg", "live/IMG_0002.JPG"] {
            #expect(try ImageProbe.header(ofFileAt: try Corpus.file(name).path(percentEncoded: false)).embeddedVideoOffset == nil, "\(name)")
        }
    }

    // MARK: - Hostile claims

    /// A file of `size` bytes whose clip, if any, starts at `clipAt` (an `ftyp` there).
    static func check(size: Int64, clipAt: Int64?) -> (Int64) -> [UInt8]? {
        { offset in
            guard offset >= 0, offset + 8 <= size else { return nil }
            return offset == clipAt ? [0, 0, 0, 24] + Array("ftyp".utf8) : [0, 0, 0, 0, 0, 0, 0, 0]
        }
    }

    static func xmp(_ attributes: String, item: String = "") -> [UInt8] {
        Array("<rdf:Description \(attributes)>\(item)</rdf:Description>".utf8)
    }

    @Test func aTruthfulClaimIsBelieved() {
        let claim = Self.xmp(#"GCamera:MotionPhoto="1""#, item: #"<Container:Item Item:Semantic="MotionPhoto" Item:Length="1000"/>"#)
        #expect(MotionPhoto.videoOffset(xmp: claim, fileSize: 5000, check: Self.check(size: 5000, clipAt: 4000)) == 4000)
    }

    @Test("a claim that lies is no clip", arguments: [
        ("longer than the file", #"GCamera:MotionPhoto="1""#, #"<Container:Item Item:Semantic="MotionPhoto" Item:Length="6000"/>"#),
        ("the whole file", #"GCamera:MotionPhoto="1""#, #"<Container:Item Item:Semantic="MotionPhoto" Item:Length="5000"/>"#),
        ("no ftyp where it points", #"GCamera:MotionPhoto="1""#, #"<Container:Item Item:Semantic="MotionPhoto" Item:Length="999"/>"#),
        ("nineteen digits", #"GCamera:MotionPhoto="1""#, #"<Container:Item Item:Semantic="MotionPhoto" Item:Length="1000000000000001000"/>"#),
        ("a negative length", #"GCamera:MotionPhoto="1""#, #"<Container:Item Item:Semantic="MotionPhoto" Item:Length="-1000"/>"#),
        ("the length on another item", #"GCamera:MotionPhoto="1""#,
         #"<Container:Item Item:Semantic="MotionPhoto"/><Container:Item Item:Semantic="Primary" Item:Length="1000"/>"#),
        ("not a motion photo", #"GCamera:MotionPhoto="0""#, #"<Container:Item Item:Semantic="MotionPhoto" Item:Length="1000"/>"#),
        ("a micro video offset of text", #"GCamera:MicroVideo="1" GCamera:MicroVideoOffset="1e3""#, ""),
        ("an unterminated value", #"GCamera:MicroVideo="1" GCamera:MicroVideoOffset="1000"#, ""),
    ])
    func lyingClaimsAreRefused(_ label: String, attributes: String, item: String) {
        #expect(MotionPhoto.videoOffset(xmp: Self.xmp(attributes, item: item), fileSize: 5000,
                                        check: Self.check(size: 5000, clipAt: 4000)) == nil, "\(label)")
    }
}
