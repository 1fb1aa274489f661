import ArgumentParser
import AttachmentStore
import Foundation
import Synchronization

/// `attach backup DEST`: a consistent, incremental backup of the store while it is in use.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Back up the catalog and every original into a folder, while the store is in use.",
        discussion: """
            DEST becomes a store of its own (check it with `attach verify --store DEST`). Run it
            again into the same DEST: originals already there are kept, new ones are hard-linked
            when DEST is on the store's filesystem and copied otherwise, and originals the store
            no longer references are removed. The catalog is replaced last, so a backup cut short
            leaves the previous one whole. `attach restore DEST --store NEW` makes a store from it.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: ArgumentHelp("The backup folder: new, empty, or an earlier backup of this store.", valueName: "DEST"))
    var destination: String
    @Flag(help: "Print the report as JSON.") var json = false

    func run() async throws {
        let store = try await storeOptions.open()
        let progress = BackupProgressBar()
        let report = try await store.backup(to: URL(filePath: destination, directoryHint: .isDirectory), progress: progress.update)
        progress.finish()
        if json { return Console.json(report) }
        Console.out(Self.summary(report, verb: "backed up"))
    }

    /// One line: what the snapshot holds and how its originals got there.
    static func summary(_ report: BackupReport, verb: String) -> String {
        "\(verb) \(report.notes) notes, \(report.attachments) attachments, \(report.blobs) originals "
            + "(\(Formatting.bytes(report.blobBytes))) into \(report.destination): "
            + "\(report.copiedBlobs) copied (\(Formatting.bytes(report.copiedBytes))), "
            + "\(report.linkedBlobs) hard-linked (\(Formatting.bytes(report.linkedBytes))), "
            + "\(report.reusedBlobs) already there (\(Formatting.bytes(report.reusedBytes))), "
            + "\(report.removedBlobs) no longer referenced removed; catalog \(Formatting.bytes(report.catalogBytes))"
    }
}

/// A progress bar made once the backup knows how many originals it copies.
final class BackupProgressBar: Sendable {
    private let bar = Mutex<ProgressBar?>(nil)

    /// Draws `progress`.
    @Sendable func update(_ progress: BackupProgress) {
        let bar = self.bar.withLock { bar in
            if bar == nil { bar = ProgressBar(total: progress.bytes, items: progress.blobs) }
            return bar!
        }
        bar.update(done: progress.bytesDone, itemsDone: progress.blobsDone, label: "originals")
    }

    /// Clears the bar, if one was drawn.
    func finish() {
        bar.withLock { $0 }?.finish()
    }
}
