import ArgumentParser
import AttachmentStore

/// `attach thumbs`: makes thumbnails for every image in the store ahead of need.
struct ThumbsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbs",
        abstract: "Make thumbnails for every image (or one note's) ahead of need, with a progress bar."
    )

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "Longest side in pixels.") var size = 200
    @Option(help: ArgumentHelp("Only this note's attachments (id or unique prefix).", valueName: "ID"))
    var note: String?
    @Flag(help: "Print a JSON summary.") var json = false

    struct Summary: Encodable {
        var images = 0
        var made = 0
        var fromCache = 0
        var notImages = 0
        var failed: [String: String] = [:]
    }

    func run() async throws {
        let store = try await storeOptions.open()
        let attachments = if let note {
            try await store.attachments(of: try await store.resolveNoteID(note))
        } else {
            try await store.allAttachments()
        }
        let before = store.thumbnailStatistics
        let bar = ProgressBar(total: Int64(attachments.count), items: attachments.count)
        var summary = Summary()
        let size = self.size
        try await withThrowingTaskGroup(of: (Attachment, AttachmentStore.Error?).self) { group in
            var next = 0
            func submit() {
                guard next < attachments.count else { return }
                let attachment = attachments[next]
                next += 1
                group.addTask {
                    do {
                        _ = try await store.thumbnail(for: attachment.id, maxPixelSize: size, priority: .prefetch)
                        return (attachment, nil)
                    } catch let error as AttachmentStore.Error {
                        return (attachment, error)
                    }
                }
            }
            // Keep a few more requests queued than there are render slots, so no core idles.
            for _ in 0..<8 { submit() }
            var done = 0
            while let (attachment, error) = try await group.next() {
                done += 1
                switch error {
                case nil: summary.images += 1
                case .notAnImage?, .notAvailableLocally?: summary.notImages += 1
                case let error?: summary.failed[attachment.id.rawValue] = "\(attachment.filename): \(error)"
                }
                bar.update(done: Int64(done), itemsDone: done, label: attachment.filename)
                submit()
            }
        }
        bar.finish()
        let after = store.thumbnailStatistics
        summary.made = after.rendersFinished - before.rendersFinished
        summary.fromCache = summary.images - summary.made
        if json { return Console.json(summary) }
        Console.out("\(summary.images) thumbnails at \(size) px: \(summary.made) made, \(summary.fromCache) already cached; "
            + "\(summary.notImages) attachments are not images" + (summary.failed.isEmpty ? "" : "; \(summary.failed.count) failed:"))
        for message in summary.failed.values.sorted() { Console.error("  \(message)") }
        if !summary.failed.isEmpty { throw CommandFailure(code: ExitStatus.inputError) }
    }
}
