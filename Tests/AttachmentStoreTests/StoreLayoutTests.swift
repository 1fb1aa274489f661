@testable import AttachmentStore
import Foundation
import Testing
import TestSupport

/// Where a store keeps its parts (``StoreLayout``): the paths it derives from the folder it is
/// given, however that folder is spelled; how it tells a store from anything else (each
/// refusal and its reason); and what creating one in a missing, empty or occupied folder does.
@Suite("Store layout")
struct StoreLayoutTests {
    @Test("every part of a store lies directly in its folder")
    func paths() {
        let layout = StoreLayout(directory: URL(filePath: "/srv/photos", directoryHint: .isDirectory))
        #expect(layout.root == "/srv/photos")
        #expect(layout.catalogPath == "/srv/photos/catalog.sqlite")
        #expect(layout.blobsPath == "/srv/photos/blobs")
        #expect(layout.temporaryPath == "/srv/photos/tmp")
        #expect(layout.cachePath == "/srv/photos/cache")
        #expect(layout.quarantinePath == "/srv/photos/quarantine")
        #expect(layout.uploadsPath == "/srv/photos/uploads")
    }

    @Test("the folder is made absolute and standard: trailing slashes, dot and dot-dot segments are resolved", arguments: [
        ("/srv/photos/", "/srv/photos"), ("/srv/photos///", "/srv/photos"), ("/srv/./photos", "/srv/photos"),
        ("/srv/other/../photos", "/srv/photos"), ("/srv/photos/.", "/srv/photos"),
    ])
    func standardised(path: String, root: String) {
        #expect(StoreLayout(directory: URL(filePath: path)).root == root)
        #expect(StoreLayout(directory: URL(filePath: path, directoryHint: .isDirectory)).catalogPath == root + "/catalog.sqlite")
    }

    @Test("a relative folder is taken from the working directory")
    func relativeFolder() {
        let root = StoreLayout(directory: URL(filePath: "attach-data", directoryHint: .isDirectory)).root
        #expect(root.hasPrefix("/"))
        #expect(root.hasSuffix("/attach-data"))
        #expect(!root.hasSuffix("/"))
    }

    @Test("a path with spaces and non-ASCII letters is kept as written, not percent-encoded")
    func unusualCharacters() {
        let layout = StoreLayout(directory: URL(filePath: "/srv/Fotos und Bilder/été", directoryHint: .isDirectory))
        #expect(layout.root == "/srv/Fotos und Bilder/été")
        #expect(layout.blobsPath == "/srv/Fotos und Bilder/été/blobs")
    }

    @Test("nothing at the path is no store; a file is not a store")
    func missingOrFile() throws {
        let directory = try TemporaryDirectory("layout-missing")
        let missing = StoreLayout(directory: directory.appending("nothing"))
        #expect(throws: AttachmentStore.Error.storeNotFound(path: missing.root)) { try missing.validateExisting() }
        let file = directory.appending("file")
        try Data("x".utf8).write(to: file)
        let layout = StoreLayout(directory: file)
        #expect(throws: AttachmentStore.Error.notAStore(path: layout.root, reason: "it is a file, not a directory")) { try layout.validateExisting() }
        #expect(throws: AttachmentStore.Error.notAStore(path: layout.root, reason: "it is a file, not a directory")) { try layout.createIfNeeded() }
        #expect(throws: AttachmentStore.Error.notAStore(path: layout.root, reason: "it is a file, not a directory")) { try layout.createWorkingFolder() }
    }

    @Test("a folder is a store only with its catalog, blobs/ and tmp/; each missing part is named")
    func partsRequired() throws {
        let directory = try TemporaryDirectory("layout-parts")
        let layout = StoreLayout(directory: directory.url)
        #expect(throws: AttachmentStore.Error.notAStore(path: layout.root, reason: "it has no catalog.sqlite")) { try layout.validateExisting() }
        FileManager.default.createFile(atPath: layout.catalogPath, contents: Data())
        let foldersMissing = AttachmentStore.Error.notAStore(path: layout.root, reason: "its blobs/ or tmp/ folder is missing")
        #expect(throws: foldersMissing) { try layout.validateExisting() }
        try FileManager.default.createDirectory(atPath: layout.blobsPath, withIntermediateDirectories: false)
        #expect(throws: foldersMissing) { try layout.validateExisting() }
        try FileManager.default.createDirectory(atPath: layout.temporaryPath, withIntermediateDirectories: false)
        try layout.validateExisting()
        try FileManager.default.removeItem(atPath: layout.blobsPath)
        #expect(throws: foldersMissing) { try layout.validateExisting() }
    }

    @Test("creating a store in a missing folder makes it, its parents, blobs/ and tmp/, all 0700, and no catalog yet")
    func createInMissingFolder() throws {
        let directory = try TemporaryDirectory("layout-create")
        let layout = StoreLayout(directory: directory.appending("a/b/store"))
        try layout.createIfNeeded()
        for path in [layout.root, layout.blobsPath, layout.temporaryPath] {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect(attributes[.type] as? FileAttributeType == .typeDirectory, "\(path)")
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700, "\(path)")
        }
        #expect(!FileManager.default.fileExists(atPath: layout.catalogPath), "the catalog is the database's to create")
        #expect(!FileManager.default.fileExists(atPath: layout.cachePath), "derived folders appear when first used")
    }

    @Test("a folder holding anything but a store is refused, and left as it was", arguments: ["notes.txt", ".hidden", "blobs"])
    func occupiedFolder(entry: String) throws {
        let directory = try TemporaryDirectory("layout-occupied")
        let folder = directory.appending("photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: folder.appending(path: entry))
        let layout = StoreLayout(directory: folder)
        #expect(throws: AttachmentStore.Error.notAStore(path: layout.root, reason: "the directory is not empty; choose an empty or new one")) {
            try layout.createIfNeeded()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: layout.root) == [entry])
    }

    @Test("an existing store is left alone by create, and a damaged one is refused as open would")
    func existingStore() throws {
        let directory = try TemporaryDirectory("layout-existing")
        let layout = StoreLayout(directory: directory.appending("store"))
        try layout.createIfNeeded()
        FileManager.default.createFile(atPath: layout.catalogPath, contents: Data("catalog".utf8))
        FileManager.default.createFile(atPath: layout.temporaryPath + "/in-flight", contents: Data("x".utf8))
        try layout.createIfNeeded()
        #expect(FileManager.default.contents(atPath: layout.catalogPath) == Data("catalog".utf8))
        #expect(FileManager.default.fileExists(atPath: layout.temporaryPath + "/in-flight"))
        try FileManager.default.removeItem(atPath: layout.temporaryPath)
        #expect(throws: AttachmentStore.Error.notAStore(path: layout.root, reason: "its blobs/ or tmp/ folder is missing")) {
            try layout.createIfNeeded()
        }
    }

    @Test("the working folder of a store whose catalog is elsewhere is made where missing, and kept where present")
    func workingFolder() throws {
        let directory = try TemporaryDirectory("layout-working")
        let layout = StoreLayout(directory: directory.appending("node-1"))
        try layout.createWorkingFolder()
        #expect(FileManager.default.fileExists(atPath: layout.blobsPath) && FileManager.default.fileExists(atPath: layout.temporaryPath))
        #expect(!FileManager.default.fileExists(atPath: layout.catalogPath))
        FileManager.default.createFile(atPath: layout.root + "/other", contents: Data())
        try layout.createWorkingFolder()  // unlike createIfNeeded, a folder with other files is fine
        #expect(FileManager.default.fileExists(atPath: layout.root + "/other"))
    }
}
