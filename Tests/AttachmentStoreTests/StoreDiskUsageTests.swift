@testable import AttachmentStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// The one walk behind `attach stats`' disk figures, checked against `du` on a real folder.
@Suite("Store disk usage")
struct StoreDiskUsageTests {
    /// `du -s -B1` of `path`: the allocated bytes `du` counts (links not followed).
    static func du(_ path: String) async throws -> Int64 {
        let outcome = try await ChildProcess.run("/usr/bin/du", ["-s", "-B1", path])
        #expect(outcome.exitCode == 0, "\(outcome.stderr)")
        return Int64(outcome.stdout.split(separator: "\t").first ?? "") ?? -1
    }

    static func fill(_ bytes: Int, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(repeating: 7, count: bytes).write(to: URL(filePath: path))
    }

    @Test("one walk counts each part of a store folder as du does, follows no link, and reads names that are not UTF-8")
    func partsMatchDu() async throws {
        let folder = try TemporaryDirectory("disk-usage")
        let root = folder.path + "/store"
        let layout = StoreLayout(directory: URL(filePath: root, directoryHint: .isDirectory))
        try Self.fill(300_000, to: layout.blobsPath + "/sha256/ab/cd/abcd")
        try Self.fill(70_000, to: layout.blobsPath + "/sha256/ef/01/ef01")
        try Self.fill(40_000, to: layout.catalogPath)
        try Self.fill(9_000, to: layout.catalogPath + "-wal")
        try Self.fill(5_000, to: layout.cachePath + "/thumbs/v2/q80-webp80/ab/abcd-200")
        try Self.fill(6_000, to: layout.cachePath + "/thumbs/v2/q80-webp80/ef/ef01-200")
        try Self.fill(120_000, to: layout.cachePath + "/blobs/ab/abcd")
        try Self.fill(33_000, to: layout.quarantinePath + "/abcd")
        try Self.fill(1_000, to: layout.temporaryPath + "/ingest-x.part")
        // A link to a large folder outside: counted as a link, never walked into.
        try Self.fill(2_000_000, to: folder.path + "/elsewhere/big")
        try FileManager.default.createSymbolicLink(atPath: layout.cachePath + "/thumbs/link", withDestinationPath: folder.path + "/elsewhere")
        // A name that is not UTF-8 (a byte 0xFF), made through the C API.
        let raw: [CChar] = Array((layout.temporaryPath + "/odd-").utf8CString.dropLast()) + [CChar(bitPattern: 0xFF), 0]
        let fd = open(raw, O_CREAT | O_WRONLY, 0o600)
        #expect(fd >= 0)
        #expect([UInt8](repeating: 1, count: 50_000).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == 50_000)
        close(fd)

        let usage = StoreDiskUsage(of: layout)
        #expect(usage.total == (try await Self.du(root)))
        #expect(usage.originals == (try await Self.du(layout.blobsPath)))
        #expect(usage.originalCopies == (try await Self.du(layout.cachePath + "/blobs")))
        #expect(usage.quarantine == (try await Self.du(layout.quarantinePath)))
        let catalog = try await Self.du(layout.catalogPath) + (try await Self.du(layout.catalogPath + "-wal"))
        #expect(usage.catalog == catalog)
        #expect(usage.thumbnailFiles == 2, "the two files, not the link or what it points to")
        #expect(usage.thumbnailBytes == 11_000)
        #expect(FileTreeWalk.diskUsage(of: root) == usage.total)
        #expect(FileTreeWalk.diskUsage(of: folder.path + "/missing") == 0)
    }
}
