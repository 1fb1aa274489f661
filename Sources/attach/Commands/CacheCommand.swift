import ArgumentParser
import AttachmentStore

/// `attach cache stats|clear`: the derived thumbnail cache.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Show or empty the thumbnail cache (derived data, safe to delete at any time).",
        subcommands: [Stats.self, Clear.self]
    )

    /// `attach cache stats`.
    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "stats", abstract: "Count the cached thumbnails and their bytes.")
        @OptionGroup var storeOptions: StoreOptions
        @Flag(help: "Print JSON.") var json = false

        struct Usage: Encodable {
            var files: Int
            var bytes: Int64
        }

        func run() async throws {
            let usage = try await storeOptions.open().thumbnailCacheUsage()
            if json { return Console.json(Usage(files: usage.files, bytes: usage.bytes)) }
            Console.out("\(usage.files) cached thumbnails, \(Formatting.bytes(usage.bytes))")
        }
    }

    /// `attach cache clear`.
    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "clear", abstract: "Delete every cached thumbnail; they are made again when needed.")
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let store = try await storeOptions.open()
            let usage = try await store.thumbnailCacheUsage()
            try await store.clearThumbnailCache()
            Console.out("removed \(usage.files) cached thumbnails (\(Formatting.bytes(usage.bytes)))")
        }
    }
}
