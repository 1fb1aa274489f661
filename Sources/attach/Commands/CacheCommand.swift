import ArgumentParser
import AttachmentStore

/// `attach cache stats|clear`: the derived caches: thumbnails, and the playable copies of videos.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Show or empty the thumbnail cache and the playable copies of videos (derived data, safe to delete at any time).",
        subcommands: [Stats.self, Clear.self]
    )

    /// `attach cache stats`.
    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "stats",
                                                        abstract: "Count the cached thumbnails and playable videos and their bytes.")
        @OptionGroup var storeOptions: StoreOptions
        @Flag(help: "Print JSON.") var json = false

        struct Usage: Encodable {
            var files: Int
            var bytes: Int64
            var videoFiles: Int
            var videoBytes: Int64
        }

        func run() async throws {
            let store = try await storeOptions.open()
            let usage = try await store.thumbnailCacheUsage()
            let videos = try await store.playableVideoUsage()
            if json { return Console.json(Usage(files: usage.files, bytes: usage.bytes, videoFiles: videos.files, videoBytes: videos.bytes)) }
            Console.out("\(usage.files) cached thumbnails, \(Formatting.bytes(usage.bytes))")
            if videos.files > 0 { Console.out("\(videos.files) playable copies of videos, \(Formatting.bytes(videos.bytes))") }
        }
    }

    /// `attach cache clear`.
    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "clear",
                                                        abstract: "Delete every cached thumbnail and playable video; they are made again when needed.")
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let store = try await storeOptions.open()
            let usage = try await store.thumbnailCacheUsage()
            let videos = try await store.playableVideoUsage()
            try await store.clearThumbnailCache()
            try await store.clearPlayableVideos()
            Console.out("removed \(usage.files) cached thumbnails (\(Formatting.bytes(usage.bytes)))")
            if videos.files > 0 { Console.out("removed \(videos.files) playable copies of videos (\(Formatting.bytes(videos.bytes)))") }
        }
    }
}
