import Foundation

/// The shared corpus of real photos, built by `make corpus` into `.cache/corpus`.
public enum Corpus {
    /// Why a test could not find the corpus.
    public struct Missing: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "the photo corpus is not at \(path); run `make corpus` (or set ATTACH_CORPUS)" }
    }

    /// The corpus folder: `$ATTACH_CORPUS`, else `<package>/.cache/corpus`.
    public static var root: URL {
        if let path = ProcessInfo.processInfo.environment["ATTACH_CORPUS"], !path.isEmpty {
            return URL(filePath: path, directoryHint: .isDirectory)
        }
        return packageRoot.appending(path: ".cache/corpus", directoryHint: .isDirectory)
    }

    /// The package's root folder.
    public static var packageRoot: URL {
        URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The corpus file at `relativePath` (for example `special/seed-3.7mb.jpg`).
    public static func file(_ relativePath: String) throws -> URL {
        let url = root.appending(path: relativePath)
        guard FileManager.default.fileExists(atPath: url.path(percentEncoded: false)) else { throw Missing(path: url.path) }
        return url
    }

    /// Every file of a corpus folder (`good`, `special`, `fifty`, `bad`), sorted by name.
    public static func files(in folder: String) throws -> [URL] {
        let directory = root.appending(path: folder, directoryHint: .isDirectory)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path(percentEncoded: false)) else {
            throw Missing(path: directory.path)
        }
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appending(path: $0) }
    }

    /// Names of the `good/` files, for parameterised tests (empty when the corpus is missing,
    /// which then fails in ``file(_:)``).
    public static var goodNames: [String] {
        (try? files(in: "good").map(\.lastPathComponent)) ?? ["<corpus missing: run make corpus>"]
    }

    /// Names of the `bad/` files, for parameterised tests.
    public static var badNames: [String] {
        (try? files(in: "bad").map(\.lastPathComponent)) ?? ["<corpus missing: run make corpus>"]
    }
}
