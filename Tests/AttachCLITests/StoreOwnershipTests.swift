import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Admin commands run as root on a store the service's user owns (`/var/lib/attach/store`,
/// owned by `attach`) work as that user, so nothing they write is root's: the service can read
/// every original, temporary file and SQLite `-wal`/`-shm` afterwards. `attach serve` as root
/// on such a store is refused. Here `nobody` plays the service's user; the tests need root.
@Suite("Admin commands as root on a store another user owns", .enabled(if: geteuid() == 0, "needs root"), .timeLimit(.minutes(2)))
struct StoreOwnershipTests {
    static let nobody: uid_t = 65534

    /// Every path under `folder` (itself included) whose owner is not `uid`.
    static func notOwned(by uid: uid_t, under folder: URL) -> [String] {
        let root = folder.path(percentEncoded: false)
        var strays: [String] = []
        var status = stat()
        if lstat(root, &status) == 0, status.st_uid != uid { strays.append(".") }
        for relative in (FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? [] {
            if lstat(root + "/" + relative, &status) == 0, status.st_uid != uid { strays.append(relative) }
        }
        return strays
    }

    /// A new store in `directory`, given to nobody as the package gives /var/lib/attach to attach.
    static func storeOwnedByNobody(in directory: TemporaryDirectory) async throws -> URL {
        let store = directory.appending("store")
        try await Attach.initStore(store)
        try await giveToNobody(store)
        return store
    }

    static func giveToNobody(_ url: URL) async throws {
        let outcome = try await ChildProcess.run("/bin/chown", ["-R", "\(nobody):\(nobody)", url.path(percentEncoded: false)])
        #expect(outcome.exitCode == 0, "\(outcome.stderr)")
    }

    @Test("import, gc and verify as root on a store nobody owns run as nobody; every file stays nobody's and nobody's verify is clean")
    func adminCommandsBecomeTheOwner() async throws {
        let directory = try TemporaryDirectory("owner")
        let store = try await Self.storeOwnedByNobody(in: directory)
        let photo = directory.appending("Dune.jpg")
        try FileManager.default.copyItem(at: Corpus.file("good/Dune.jpg"), to: photo)
        chmod(photo.path(percentEncoded: false), 0o644)

        let imported = try await Attach.run(["import", "--new-note", "Trip", photo.path(percentEncoded: false)], store: store)
        #expect(imported.exitCode == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("attach: running as nobody (uid 65534), the owner of \(store.path(percentEncoded: false))"))
        for command in [["gc"], ["thumbs"], ["stats"]] {
            let outcome = try await Attach.run(command, store: store)
            #expect(outcome.exitCode == 0, "\(command): \(outcome.stderr)")
        }
        #expect(Self.notOwned(by: Self.nobody, under: store) == [], "every file the commands wrote is the owner's")

        let asOwner = try await Attach.run(through: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"],
                                           ["verify"], store: store)
        #expect(asOwner.exitCode == 0, "\(asOwner.stdout)\(asOwner.stderr)")
        #expect(asOwner.stdout.hasPrefix("clean: 1 blobs"), "\(asOwner.stdout)")
    }

    @Test("attach init as root in a folder nobody owns makes a store nobody owns")
    func initTakesTheFoldersOwner() async throws {
        let directory = try TemporaryDirectory("owner-init")
        let home = directory.appending("lib-attach")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try await Self.giveToNobody(home)
        let outcome = try await Attach.run(["init"], store: home.appending(path: "store"))
        #expect(outcome.exitCode == 0, "\(outcome.stderr)")
        #expect(Self.notOwned(by: Self.nobody, under: home) == [])
    }

    @Test("attach serve as root on a store nobody owns is refused, naming the owner, and writes nothing")
    func serveAsRootIsRefused() async throws {
        let directory = try TemporaryDirectory("owner-serve")
        let store = try await Self.storeOwnedByNobody(in: directory)
        let before = Files.tree(store)
        let outcome = try await Attach.run(["serve", "--port", "0"], store: store)
        #expect(outcome.exitCode == 1)
        #expect(outcome.stderr.contains("belongs to nobody (uid 65534); serving it as root would leave files that user cannot read"), "\(outcome.stderr)")
        #expect(Files.tree(store) == before)
        #expect(Self.notOwned(by: Self.nobody, under: store) == [])
    }

    @Test("a store root owns is worked on as root, with no switch and no notice")
    func rootsOwnStoreIsLeftAlone() async throws {
        let directory = try TemporaryDirectory("owner-root")
        let store = directory.appending("store")
        try await Attach.initStore(store)
        let outcome = try await Attach.run(["stats"], store: store)
        #expect(outcome.exitCode == 0)
        #expect(!outcome.stderr.contains("running as"))
        #expect(Self.notOwned(by: 0, under: store) == [])
    }
}
