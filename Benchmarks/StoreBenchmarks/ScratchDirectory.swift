import Foundation

/// A fresh folder under `$TMPDIR` for one benchmark's files, removed by ``remove()``.
final class ScratchDirectory {
    /// The folder.
    let url: URL

    /// Creates `$TMPDIR/attach-microbench-<uuid>`.
    /// - Throws: when the folder cannot be created.
    init() throws {
        url = FileManager.default.temporaryDirectory
            .appending(path: "attach-microbench-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    /// Runs `body` with a new scratch folder (to build a fixture in), removing the folder
    /// again if `body` throws.
    static func make<Result>(_ body: (ScratchDirectory) async throws -> Result) async throws -> Result {
        let scratch = try ScratchDirectory()
        do {
            return try await body(scratch)
        } catch {
            try? scratch.remove()
            throw error
        }
    }

    /// The path of `name` inside the folder.
    func path(_ name: String) -> URL { url.appending(path: name) }

    /// Deletes the folder and everything in it.
    /// - Throws: when something in it cannot be removed.
    func remove() throws {
        try FileManager.default.removeItem(at: url)
    }
}
