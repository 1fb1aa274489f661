import ArgumentParser
@testable import attach
import AttachmentStore
import Foundation
import Testing
import TestSupport

/// Secrets read from files (`--token-file`, `ATTACH_CATALOG_FILE`): what is kept of the file,
/// each way a file can be unusable and the message naming the option and the path, and the
/// rule that a secret comes from the option or its file, never both. Also how the storage
/// budget options change a store's budget.
@Suite("Secret files and budget options")
struct SecretFileTests {
    static func file(_ directory: TemporaryDirectory, _ bytes: [UInt8], name: String = "secret") throws -> String {
        let url = directory.appending(name)
        try Data(bytes).write(to: url)
        return url.path(percentEncoded: false)
    }

    @Test("the file's text is the secret, without the line breaks around it; other spaces are kept", arguments: [
        ("s3cr3t", "s3cr3t"), ("s3cr3t\n", "s3cr3t"), ("s3cr3t\r\n", "s3cr3t"), ("\n\ns3cr3t\n\n", "s3cr3t"),
        ("  s3cr3t\t\n", "  s3cr3t\t"), ("pässwörd\n", "pässwörd"),
    ])
    func secretText(contents: String, secret: String) throws {
        let directory = try TemporaryDirectory("secret")
        let path = try Self.file(directory, Array(contents.utf8))
        #expect(try SecretFile.read(path, for: "--token-file") == secret)
    }

    @Test("an empty file, or one of only line breaks, is refused naming the option and the file", arguments: ["", "\n", "\r\n\n"])
    func emptyFile(contents: String) throws {
        let directory = try TemporaryDirectory("secret-empty")
        let path = try Self.file(directory, Array(contents.utf8))
        let error = try #require(throws: ValidationError.self) { try SecretFile.read(path, for: "--token-file") }
        #expect(error.message == "--token-file \(path): the file is empty")
    }

    @Test("a missing file or a folder cannot be read")
    func unreadable() throws {
        let directory = try TemporaryDirectory("secret-missing")
        for path in [directory.appending("nothing").path(percentEncoded: false), directory.path] {
            let error = try #require(throws: ValidationError.self) { try SecretFile.read(path, for: "ATTACH_CATALOG_FILE") }
            #expect(error.message == "ATTACH_CATALOG_FILE \(path): the file cannot be read")
        }
    }

    @Test("a file that is not UTF-8 text is refused as such")
    func notText() throws {
        let directory = try TemporaryDirectory("secret-binary")
        let path = try Self.file(directory, [0xFF, 0xFE, 0x00, 0xC3])
        let error = try #require(throws: ValidationError.self) { try SecretFile.read(path, for: "--sync-token-file") }
        #expect(error.message == "--sync-token-file \(path): the file is not UTF-8 text")
    }

    @Test("a secret comes from its option, or from its file, or is absent")
    func either() throws {
        let directory = try TemporaryDirectory("secret-either")
        let path = try Self.file(directory, Array("from-file\n".utf8))
        #expect(try SecretFile.either("given", option: "--token", file: nil, fileOption: "--token-file") == "given")
        #expect(try SecretFile.either(nil, option: "--token", file: path, fileOption: "--token-file") == "from-file")
        #expect(try SecretFile.either(nil, option: "--token", file: nil, fileOption: "--token-file") == nil)
        #expect(try SecretFile.either("", option: "--token", file: nil, fileOption: "--token-file") == "", "an empty option is given")
    }

    @Test("a secret given both ways is refused, without reading the file")
    func notBoth() throws {
        let error = try #require(throws: ValidationError.self) {
            try SecretFile.either("given", option: "--peer-token", file: "/nonexistent", fileOption: "--peer-token-file")
        }
        #expect(error.message == "give --peer-token or --peer-token-file, not both")
    }

    @Test("a token file's error reaches the sync commands' token option")
    func tokenOption() throws {
        let options = try PeerTokenOption.parse(["--token-file", "/nonexistent/token"])
        let peer = ["http://127.0.0.1:1"]
        let error = try #require(throws: ValidationError.self) { try options.peers(peer) }
        #expect(error.message == "--token-file /nonexistent/token: the file cannot be read")
        let both = try PeerTokenOption.parse(["--token", "t", "--token-file", "/nonexistent/token"])
        #expect(throws: ValidationError.self) { try both.peers(peer) }
        #expect(try PeerTokenOption.parse(["--token", "t"]).peers(peer).map(\.token) == ["t"])
    }

    @Test("budget options change only the limits given; none lifts a limit; no option changes nothing")
    func budgetOptions() throws {
        let current = StorageBudget(maxLocalBytes: 100, maxThumbnailCacheBytes: 200)
        let none = try StorageBudgetOptions.parse([])
        #expect(!none.isGiven && none.applied(to: current) == current)
        let local = try StorageBudgetOptions.parse(["--max-local-bytes", "1G"])
        #expect(local.isGiven && local.applied(to: current) == StorageBudget(maxLocalBytes: 1 << 30, maxThumbnailCacheBytes: 200))
        let lifted = try StorageBudgetOptions.parse(["--max-thumbnail-cache-bytes", "none"])
        #expect(lifted.isGiven && lifted.applied(to: current) == StorageBudget(maxLocalBytes: 100, maxThumbnailCacheBytes: nil))
        let both = try StorageBudgetOptions.parse(["--max-local-bytes", "none", "--max-thumbnail-cache-bytes", "64M"])
        #expect(both.applied(to: current) == StorageBudget(maxLocalBytes: nil, maxThumbnailCacheBytes: 64 << 20))
        #expect(both.applied(to: StorageBudget()) == StorageBudget(maxLocalBytes: nil, maxThumbnailCacheBytes: 64 << 20))
    }
}
