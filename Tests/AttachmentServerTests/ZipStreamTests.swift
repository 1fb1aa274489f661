@testable import AttachmentServer
import Foundation
import Testing
import TestSupport

/// The zip of originals, checked by the tools people unpack with: `unzip -t` tests every CRC,
/// `unzip` extracts, and Python's zipfile reads it a second way.
@Suite("Zip archives streamed entry by entry")
struct ZipStreamTests {
    /// Writes `files` (name, bytes) through a ``ZipStream`` into `archive`, in chunks of 1,000 bytes.
    static func write(_ files: [(String, [UInt8])], to archive: URL, zip64Threshold: Int64 = 0xFFFF_FFFF) throws {
        var zip = ZipStream(zip64Threshold: zip64Threshold)
        var names = ZipEntryNames()
        var bytes: [UInt8] = []
        for (name, data) in files {
            bytes += Array(buffer: zip.begin(name: names.name(for: name), modified: Date(timeIntervalSince1970: 1_764_000_000), size: Int64(data.count)))
            var start = 0
            repeat {
                let chunk = Array(data[start..<min(start + 1000, data.count)])
                zip.add(chunk)
                bytes += chunk
                start += 1000
            } while start < data.count
            bytes += Array(buffer: zip.finish())
        }
        bytes += Array(buffer: zip.end())
        #expect(zip.offset == Int64(bytes.count), "the stream counts what it wrote")
        try Data(bytes).write(to: archive)
    }

    /// Tests the archive with `unzip -t`, extracts it into a fresh folder and returns that folder's
    /// files by name; and has Python's zipfile read every entry (which checks the CRCs again).
    static func unpack(_ archive: URL, in directory: TemporaryDirectory) async throws -> [String: Data] {
        let tested = try await ChildProcess.run("/usr/bin/unzip", ["-t", archive.path(percentEncoded: false)])
        #expect(tested.exitCode == 0, "unzip -t: \(tested.stdout) \(tested.stderr)")
        let python = try await ChildProcess.run("/usr/bin/python3", ["-c", """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as z:
                assert z.testzip() is None
                print(len(z.namelist()))
            """, archive.path(percentEncoded: false)])
        #expect(python.exitCode == 0, "python zipfile: \(python.stderr)")
        let out = directory.appending("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let extracted = try await ChildProcess.run("/usr/bin/unzip", ["-q", "-o", archive.path(percentEncoded: false), "-d", out.path(percentEncoded: false)])
        #expect(extracted.exitCode == 0, "unzip: \(extracted.stderr)")
        // Everything landed inside `out`, as plain files.
        let outside = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(Set(outside) == ["out", archive.lastPathComponent])
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: out.path(percentEncoded: false)) {
            files[name] = try Data(contentsOf: out.appending(path: name))
        }
        return files
    }

    @Test("entries come out byte for byte under safe, unique names; hostile names stay inside the folder")
    func entriesUnpackByteForByteUnderSafeNames() async throws {
        let directory = try TemporaryDirectory("zip")
        let photo = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let archive = directory.appending("photos.zip")
        try Self.write([("IMG_0001.jpg", photo), ("img_0001.JPG", [1, 2, 3]), ("../../etc/passwd", Array("root".utf8)),
                        ("bell\u{7}.txt", []), ("Ünïcødé 写真.png", Array("pixels".utf8))], to: archive)
        let files = try await Self.unpack(archive, in: directory)
        #expect(files == [
            "IMG_0001.jpg": Data(photo), "img_0001 (2).JPG": Data([1, 2, 3]), "_.._etc_passwd": Data("root".utf8),
            "bell_.txt": Data(), "Ünïcødé 写真.png": Data("pixels".utf8),
        ])
    }

    @Test("past the 32-bit limits the archive switches to ZIP64 fields and unzips the same (limit lowered to 1,500 bytes)")
    func zip64FieldsUnpackTheSame() async throws {
        let directory = try TemporaryDirectory("zip64")
        let large = (0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let small = Array("after the limit".utf8)
        let archive = directory.appending("large.zip")
        try Self.write([("a.bin", small), ("large.bin", large), ("b.bin", small)], to: archive, zip64Threshold: 1500)
        let files = try await Self.unpack(archive, in: directory)
        #expect(files == ["a.bin": Data(small), "large.bin": Data(large), "b.bin": Data(small)])
    }

    @Test("an empty archive is a valid zip with no entries")
    func emptyArchiveIsValid() async throws {
        let directory = try TemporaryDirectory("zip-empty")
        let archive = directory.appending("empty.zip")
        try Self.write([], to: archive)
        let python = try await ChildProcess.run("/usr/bin/python3", ["-c", "import sys, zipfile; assert zipfile.ZipFile(sys.argv[1]).namelist() == []",
                                                                     archive.path(percentEncoded: false)])
        #expect(python.exitCode == 0, "\(python.stderr)")
    }

    @Test("safe names: no folders, no leading dots, no control characters, at most 200 bytes with the extension kept")
    func safeNames() {
        #expect(ZipEntryNames.safe("..") == "file")
        #expect(ZipEntryNames.safe(".hidden") == "hidden")
        #expect(ZipEntryNames.safe("C:\\Windows\\win.ini") == "C__Windows_win.ini")
        let long = ZipEntryNames.safe(String(repeating: "é", count: 300) + ".jpeg")
        #expect(long.utf8.count <= 200 && long.hasSuffix(".jpeg"))
    }
}
