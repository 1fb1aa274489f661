import ArgumentParser
import AttachmentStore
import Foundation
import Imaging

/// `attach-bench`: the storage strategies of `make bench`, each through the store's real code
/// paths, one measured step per process (`scripts/bench-storage.sh` times them and reads
/// their peak memory with `peak-rss`).
@main
struct AttachBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach-bench",
        abstract: "Save, show and decode 50 photos under one storage strategy, for make bench.",
        subcommands: [Save.self, Gallery.self, Decode.self, SeedNotes.self]
    )

    /// Sets the heap up as `attach` does (``ProcessHeap/useOneHeap()``), then runs the command.
    static func main() async {
        ProcessHeap.useOneHeap()
        await main(nil)
    }
}

/// How photos are stored, for comparison with the default.
enum Strategy: String, ExpressibleByArgument, CaseIterable {
    /// Originals byte for byte in content-addressed files (the store's default).
    case files
    /// Originals byte for byte, inline in a SQLite BLOB column of the catalog.
    case inline
    /// Decoded and re-encoded as JPEG at quality 100, then stored as files.
    case jpeg100
    /// Decoded and re-encoded as PNG, then stored as files.
    case png
}

/// Prints one line of JSON for the script.
func report(_ fields: [String: Double]) {
    let body = fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",")
    print("{\(body)}")
}

extension AttachBench {
    /// `save`: stores each file into its own note, durably, and reports the wall time.
    struct Save: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Store every FILE into its own note; print the seconds it took.")
        @Option var strategy: Strategy
        @Option var store: String
        @Argument var files: [String]

        func run() async throws {
            var configuration = AttachmentStore.Configuration()
            configuration.originals = strategy == .inline ? .catalog : .files
            configuration.thumbnails.generateAfterImport = false
            let store = try await AttachmentStore.create(at: URL(filePath: store), configuration: configuration)
            let clock = ContinuousClock()
            let started = clock.now
            for (index, file) in files.enumerated() {
                let note = try await store.createNote(title: "photo \(index)")
                let url = URL(filePath: file)
                switch strategy {
                case .files, .inline:
                    _ = try await store.addAttachment(to: note.id, fromFile: url)
                case .jpeg100, .png:
                    let encoding: FullImage.Encoding = strategy == .png ? .png : .jpeg(quality: 100)
                    let bytes = try await Self.offloaded { try FullImage.reencode(fileAt: file, as: encoding) }
                    let name = url.deletingPathExtension().lastPathComponent + (strategy == .png ? ".png" : ".jpg")
                    _ = try await store.addAttachment(to: note.id, data: Data(bytes), filename: name)
                }
            }
            report(["seconds": (clock.now - started).seconds, "files": Double(files.count)])
        }

        /// Runs libvips work on a plain thread, off the cooperative pool.
        static func offloaded<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
            }
        }
    }

    /// `gallery`: loads every 200 px thumbnail at once and keeps them all in memory.
    struct Gallery: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Load all thumbnails at 200 px into memory, as a gallery does.")
        @Option var store: String

        func run() async throws {
            let store = try await AttachmentStore.open(at: URL(filePath: store))
            let attachments = try await store.allAttachments()
            let thumbnails = try await withThrowingTaskGroup(of: Thumbnail.self) { group in
                for attachment in attachments { group.addTask { try await store.thumbnail(for: attachment.id, maxPixelSize: 200) } }
                return try await group.reduce(into: [Thumbnail]()) { $0.append($1) }
            }
            report(["thumbnails": Double(thumbnails.count), "bytes": Double(thumbnails.reduce(0) { $0 + $1.data.count })])
        }
    }

    /// `decode`: decodes full images one after another.
    struct Decode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Decode every full image (or the first N) one after another.")
        @Option var store: String
        @Option(help: "Only the first N images.") var limit: Int?

        func run() async throws {
            let store = try await AttachmentStore.open(at: URL(filePath: store))
            let attachments = try await store.allAttachments().prefix(limit ?? .max)
            var pixels = 0
            for attachment in attachments {
                let path = try await store.original(of: attachment.id).fileURL.path(percentEncoded: false)
                pixels += try await Save.offloaded { try FullImage.decode(fileAt: path) }.pixelBytes
            }
            report(["images": Double(attachments.count), "pixelBytes": Double(pixels)])
        }
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
