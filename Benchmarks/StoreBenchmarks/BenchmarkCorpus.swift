import Foundation

/// The shared corpus of real photos the benchmarks read (built by `make corpus`).
enum BenchmarkCorpus {
    /// A corpus file that is not there.
    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String {
            "StoreBenchmarks: the corpus file \(path) is missing. Build the corpus with `make corpus`, "
                + "or set ATTACH_CORPUS to a corpus folder (see scripts/corpus/README.md)."
        }
    }

    /// The corpus folder: `$ATTACH_CORPUS`, else `<package>/.cache/corpus`.
    static var root: URL {
        if let path = ProcessInfo.processInfo.environment["ATTACH_CORPUS"], !path.isEmpty {
            return URL(filePath: path, directoryHint: .isDirectory)
        }
        // This file is <package>/Benchmarks/StoreBenchmarks/BenchmarkCorpus.swift.
        return URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: ".cache/corpus", directoryHint: .isDirectory)
    }

    /// The corpus file at `relativePath` (for example `special/seed-3.7mb.jpg`).
    /// - Throws: ``Missing`` when it is not a readable file.
    static func file(_ relativePath: String) throws -> URL {
        let url = root.appending(path: relativePath)
        guard FileManager.default.isReadableFile(atPath: url.path(percentEncoded: false)) else {
            throw Missing(path: url.path(percentEncoded: false))
        }
        return url
    }
}
