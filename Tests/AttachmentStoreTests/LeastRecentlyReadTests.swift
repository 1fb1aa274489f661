@testable import AttachmentStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// Access times as the record of reads, and trimming a folder by them, on real files.
@Suite("Least recently read", .timeLimit(.minutes(3)))
struct LeastRecentlyReadTests {
    /// Writes `bytes` bytes at `name` under `directory` and sets its access time `age` seconds back.
    @discardableResult
    static func file(_ directory: TemporaryDirectory, _ name: String, bytes: Int, age: TimeInterval) throws -> String {
        let path = directory.path + "/" + name
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(count: bytes).write(to: URL(filePath: path))
        setLastRead(path, Date().addingTimeInterval(-age))
        return path
    }

    static func setLastRead(_ path: String, _ date: Date) {
        // The access time set, the modification time left alone (UTIME_OMIT).
        var times = [timespec(tv_sec: Int(date.timeIntervalSince1970), tv_nsec: 0), timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    @Test("touch sets the last read to now, and of a missing file creates nothing")
    func touchSetsNow() throws {
        let directory = try TemporaryDirectory("lru")
        let path = try Self.file(directory, "a", bytes: 1, age: 86_400)
        #expect(try #require(LeastRecentlyRead.lastRead(path)).timeIntervalSinceNow < -86_000)
        LeastRecentlyRead.touch(path)
        #expect(abs(try #require(LeastRecentlyRead.lastRead(path)).timeIntervalSinceNow) < 5)
        LeastRecentlyRead.touch(directory.path + "/missing")
        #expect(!Self.exists(directory.path + "/missing"))
        #expect(LeastRecentlyRead.lastRead(directory.path + "/missing") == nil)
    }

    @Test("touchIfPresent says whether the file was there, and touches it only then")
    func touchIfPresent() throws {
        let directory = try TemporaryDirectory("lru")
        let path = try Self.file(directory, "a", bytes: 1, age: 3_600)
        #expect(try LeastRecentlyRead.touchIfPresent(path))
        #expect(abs(try #require(LeastRecentlyRead.lastRead(path)).timeIntervalSinceNow) < 5)
        #expect(try !LeastRecentlyRead.touchIfPresent(directory.path + "/missing"))
        #expect(try !LeastRecentlyRead.touchIfPresent(path + "/under-a-file"), "ENOTDIR counts as absent")
        #expect(!Self.exists(directory.path + "/missing"))
    }

    @Test("touchIfPresent throws when the file cannot be looked at, other than being absent")
    func touchIfPresentThrows() throws {
        let directory = try TemporaryDirectory("lru")
        #expect(throws: SystemError.self) { try LeastRecentlyRead.touchIfPresent(directory.path + "/" + String(repeating: "n", count: 300)) }
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/loop1", withDestinationPath: directory.path + "/loop2")
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/loop2", withDestinationPath: directory.path + "/loop1")
        #expect(throws: SystemError.self) { try LeastRecentlyRead.touchIfPresent(directory.path + "/loop1") }
    }

    @Test("trim removes the least recently read files first, until the folder is within the limit")
    func trimOrder() throws {
        let directory = try TemporaryDirectory("lru")
        let oldest = try Self.file(directory, "oldest", bytes: 100, age: 4_000)
        let older = try Self.file(directory, "sub/older", bytes: 100, age: 3_000)
        let newer = try Self.file(directory, "newer", bytes: 100, age: 2_000)
        let newest = try Self.file(directory, "sub/deeper/newest", bytes: 100, age: 1_000)
        let result = try LeastRecentlyRead.trim(directory.path, to: 250, grace: 0)
        #expect(result.files == 2 && result.bytes == 200 && result.left == 200)
        #expect(!Self.exists(oldest) && !Self.exists(older))
        #expect(Self.exists(newer) && Self.exists(newest))
    }

    @Test("trim removes nothing when the folder is within the limit, exactly at it, or empty")
    func trimWithinLimit() throws {
        let directory = try TemporaryDirectory("lru")
        try Self.file(directory, "a", bytes: 60, age: 9_000)
        try Self.file(directory, "b", bytes: 40, age: 9_000)
        #expect(try LeastRecentlyRead.trim(directory.path, to: 100, grace: 0) == (0, 0, 100))
        #expect(try LeastRecentlyRead.trim(directory.path, to: 1_000, grace: 0) == (0, 0, 100))
        let empty = try TemporaryDirectory("lru-empty")
        #expect(try LeastRecentlyRead.trim(empty.path, to: 0, grace: 0) == (0, 0, 0))
        #expect(try LeastRecentlyRead.trim(empty.path + "/missing", to: 0, grace: 0) == (0, 0, 0))
    }

    @Test("a limit of zero removes every file read before the grace, empty ones included")
    func trimToZero() throws {
        let directory = try TemporaryDirectory("lru")
        let paths = try (0..<3).map { try Self.file(directory, "f\($0)", bytes: $0 * 10, age: 600) }
        #expect(try LeastRecentlyRead.trim(directory.path, to: 0, grace: 60) == (3, 30, 0))
        #expect(paths.allSatisfy { !Self.exists($0) })
    }

    @Test("files read within the grace are spared even when the folder stays over the limit")
    func graceSparesRecentReads() throws {
        let directory = try TemporaryDirectory("lru")
        let old = try Self.file(directory, "old", bytes: 100, age: 7_200)
        let recent = try Self.file(directory, "recent", bytes: 100, age: 7_200)
        LeastRecentlyRead.touch(recent)
        let result = try LeastRecentlyRead.trim(directory.path, to: 0, grace: 3_600)
        #expect(result.files == 1 && result.bytes == 100 && result.left == 100)
        #expect(!Self.exists(old) && Self.exists(recent))
    }

    @Test("unfinished .part files and folders are neither counted nor removed")
    func partFilesIgnored() throws {
        let directory = try TemporaryDirectory("lru")
        let part = try Self.file(directory, "blob.part-1234", bytes: 500, age: 9_000)
        let kept = try Self.file(directory, "dir/blob", bytes: 10, age: 9_000)
        #expect(LeastRecentlyRead.files(under: directory.path).map(\.path) == [kept])
        #expect(try LeastRecentlyRead.trim(directory.path, to: 0, grace: 0) == (1, 10, 0))
        #expect(Self.exists(part) && Self.exists(directory.path + "/dir"))
    }

    @Test("a finished file whose name merely contains .part, or sits in a folder that does, is a file like any other")
    func partInNamesIsNotUnfinished() throws {
        let directory = try TemporaryDirectory("lru")
        let party = try Self.file(directory, "report.party.jpg", bytes: 10, age: 9_000)
        let inFolder = try Self.file(directory, "x.parts/blob", bytes: 10, age: 9_000)
        #expect(Set(LeastRecentlyRead.files(under: directory.path).map(\.path)) == [party, inFolder])
    }
}
