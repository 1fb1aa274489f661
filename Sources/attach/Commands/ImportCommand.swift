import ArgumentParser
import AttachmentStore
import AttachmentSync
import Foundation
import Synchronization

/// `attach import`: adds files, and folders recursively, to a note.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add files (folders recursively) to a note, byte for byte; bad files are listed, not fatal.",
        discussion: """
            Files are committed in batches of up to 16 (copied in parallel, made durable together). Prints one summary line; with --json, one JSON line per file the moment its batch is stored, then a summary.
            Exits 1 when any file could not be imported (the others are stored).
            A store with a storage budget (--max-local-bytes) is kept within it as files land: the least recently read \
            originals a peer holds (--peer, else the peers this store pulled from) are evicted; the imported files, the \
            only copies, always stay.
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: ArgumentHelp("Files and folders to import.", valueName: "FILES_OR_DIRS"))
    var inputs: [String]
    @Option(help: ArgumentHelp("Add to this note (id or unique prefix).", valueName: "ID"))
    var note: String?
    @Option(help: ArgumentHelp("Create a note with this title and add to it.", valueName: "TITLE"))
    var newNote: String?
    @Flag(help: "Do not make thumbnails now (they are made when first asked for).")
    var noThumbnails = false
    @Flag(help: "Print one JSON line per file and a JSON summary.")
    var json = false
    @Option(name: .customLong("peer"), help: ArgumentHelp("A peer that may hold originals evicted under the storage budget (repeatable).",
                                                          valueName: "URL"))
    var peers: [String] = []
    @OptionGroup var tokenOption: PeerTokenOption

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("name at least one file or folder to import") }
        if (note == nil) == (newNote == nil) { throw ValidationError("give exactly one of --note ID or --new-note TITLE") }
    }

    func run() async throws {
        let http = try tokenOption.httpClient()
        do {
            try await importFiles(http: http)
        } catch {
            await http.shutdown()
            throw error
        }
        await http.shutdown()
    }

    private func importFiles(http: PeerHTTPClient) async throws {
        var configuration = AttachmentStore.Configuration()
        configuration.thumbnails.generateAfterImport = !noThumbnails
        let (store, _) = try await StorageBudgetKeeper.open(storeOptions, peers: peers, tokenOption: tokenOption, http: http, base: configuration)
        var budget = try await StorageBudgetKeeper(store: store)
        let noteID = if let note { try await store.resolveNoteID(note) } else { try await store.createNote(title: newNote ?? "").id }
        let plan = ImportPlan(inputs: inputs)
        var outcome = ImportOutcome(note: noteID, failures: plan.failures)
        for failure in plan.failures where json { Console.json(ImportEvent.failed(file: failure.file, error: failure.message)) }

        let bar = ProgressBar(total: plan.totalBytes, items: plan.files.count)
        var bytesBefore: Int64 = 0
        var filesBefore = 0
        // Group commit, pipelined: each batch is copied in parallel while the previous one is
        // made durable and committed; its files are reported (and acknowledged with --json) once
        // it is committed.
        var committing: (files: [ImportPlan.File], task: Task<[Result<Attachment, AttachmentStore.Error>], any Error>)?
        for files in plan.batches() {
            let batch = store.batch(addingTo: noteID)
            let copied = Mutex([Int64](repeating: 0, count: files.count))
            let base = bytesBefore, itemsBase = filesBefore
            async let staging: Void = batch.add(filesAt: files.map { URL(filePath: $0.path) }) { index, bytes in
                let done = copied.withLock { copied in
                    copied[index] = bytes
                    return copied.reduce(0, +)
                }
                bar.update(done: base + done, itemsDone: itemsBase, label: files[index].path)
            }
            // The previous batch is acknowledged the moment it is committed.
            if let committing { try await record(committing, in: &outcome, budget: &budget) }
            do {
                try await staging
            } catch {
                await batch.discard()
                throw error
            }
            committing = (files, Task { try await batch.commit() })
            bytesBefore += files.reduce(0) { $0 + $1.byteCount }
            filesBefore += files.count
            bar.update(done: bytesBefore, itemsDone: filesBefore, label: files.last?.path ?? "")
        }
        if let committing { try await record(committing, in: &outcome, budget: &budget) }
        bar.update(done: plan.totalBytes, itemsDone: plan.files.count, label: noThumbnails ? "" : "making thumbnails")
        // Thumbnails were started in the background as each file landed; let them finish.
        await store.waitForBackgroundWork()
        bar.finish()
        outcome.report(json: json)
        if !json, let summary = budget.summary { Console.out(summary) }
        if let code = outcome.failures.map(\.exitCode).max() { throw CommandFailure(code: code) }
    }

    /// Records a committed batch, and keeps the store within its budget with its bytes.
    private func record(_ committing: (files: [ImportPlan.File], task: Task<[Result<Attachment, AttachmentStore.Error>], any Error>),
                        in outcome: inout ImportOutcome, budget: inout StorageBudgetKeeper) async throws {
        let before = outcome.bytes
        try outcome.record(await committing.task.result, files: committing.files, json: json)
        try await budget.added(outcome.bytes - before)
    }
}

/// The files an import will read, found by walking the inputs, and the inputs it cannot read.
struct ImportPlan {
    struct File {
        var path: String
        var byteCount: Int64
    }

    var files: [File] = []
    var failures: [ImportOutcome.Failure] = []
    var totalBytes: Int64 { files.reduce(0) { $0 + $1.byteCount } }

    /// The files in runs committed together: at most `maxFiles` and, unless one file alone is
    /// larger, `maxBytes` each — small enough that a batch is acknowledged soon and its copies
    /// in `tmp/` stay bounded, large enough that its flushes are shared.
    func batches(maxFiles: Int = 16, maxBytes: Int64 = 256 << 20) -> [[File]] {
        var batches: [[File]] = []
        var current: [File] = []
        var bytes: Int64 = 0
        for file in files {
            if !current.isEmpty, current.count == maxFiles || bytes + file.byteCount > maxBytes {
                batches.append(current)
                current = []
                bytes = 0
            }
            current.append(file)
            bytes += file.byteCount
        }
        if !current.isEmpty { batches.append(current) }
        return batches
    }

    /// Expands folders recursively (hidden entries inside folders are skipped), in name order.
    init(inputs: [String]) {
        let manager = FileManager.default
        for input in inputs {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: input, isDirectory: &isDirectory) else {
                failures.append(.init(file: input, error: .sourceUnreadable(path: input, cause: .system(SystemError("stat", code: ENOENT)))))
                continue
            }
            guard isDirectory.boolValue else {
                files.append(File(path: input, byteCount: Self.size(input)))
                continue
            }
            let folder = URL(filePath: input, directoryHint: .isDirectory).resolvingSymlinksInPath()
            let enumerator = manager.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey],
                                                options: [.skipsHiddenFiles])
            var found: [String] = []
            while let url = enumerator?.nextObject() as? URL {
                if (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
                    found.append(url.path(percentEncoded: false))
                }
            }
            files += found.sorted().map { File(path: $0, byteCount: Self.size($0)) }
        }
    }

    /// The file's size for the progress total, by `stat` (Foundation's `attributesOfItem` also
    /// looks the owner and group up in `/etc/passwd` and `/etc/group`, twice per file); 0 when
    /// it cannot be read, which the import itself then reports.
    private static func size(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }
}

/// What an import did, for the summary line.
struct ImportOutcome {
    struct Failure {
        var file: String
        var error: AttachmentStore.Error

        /// One line naming the file and the cause, with the command line's advice for it.
        var message: String {
            let text = error.description + (ErrorHint.hint(for: error).map { "; \($0)" } ?? "")
            return text.contains(file) ? text : "\(file): \(text)"
        }

        var exitCode: Int32 { ExitStatus.code(for: error) }
    }

    var note: NoteID
    var imported = 0
    var bytes: Int64 = 0
    var failures: [Failure]

    /// Counts (and with `json` prints) what became of a committed batch's files; a batch whose
    /// commit failed fails each of its files with that error.
    /// - Throws: an error that is not the store's (the import stops).
    mutating func record(_ committed: Result<[Result<Attachment, AttachmentStore.Error>], any Error>,
                         files: [ImportPlan.File], json: Bool) throws {
        let results: [Result<Attachment, AttachmentStore.Error>]
        switch committed {
        case .success(let outcomes): results = outcomes
        case .failure(let error as AttachmentStore.Error): results = files.map { _ in .failure(error) }
        case .failure(let error): throw error
        }
        for (file, result) in zip(files, results) {
            switch result {
            case .success(let attachment):
                imported += 1
                bytes += attachment.byteCount
                if json { Console.json(ImportEvent.imported(file: file.path, attachment: attachment)) }
            case .failure(let error):
                failures.append(.init(file: file.path, error: error))
                if json { Console.json(ImportEvent.failed(file: file.path, error: failures.last!.message)) }
            }
        }
    }

    func report(json: Bool) {
        if json {
            return Console.json(ImportEvent.summary(note: note, imported: imported, failed: failures.count, bytes: bytes))
        }
        Console.out("imported \(imported) file\(imported == 1 ? "" : "s") (\(Formatting.bytes(bytes))) into note \(note)"
            + (failures.isEmpty ? "" : "; \(failures.count) failed:"))
        for failure in failures { Console.error("  \(failure.message)") }
    }
}

/// One line of `import --json` output.
enum ImportEvent: Encodable {
    case imported(file: String, attachment: Attachment)
    case failed(file: String, error: String)
    case summary(note: NoteID, imported: Int, failed: Int, bytes: Int64)

    private enum Keys: String, CodingKey { case event, file, attachment, error, note, imported, failed, bytes }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        switch self {
        case .imported(let file, let attachment):
            try container.encode("imported", forKey: .event)
            try container.encode(file, forKey: .file)
            try container.encode(attachment, forKey: .attachment)
        case .failed(let file, let error):
            try container.encode("failed", forKey: .event)
            try container.encode(file, forKey: .file)
            try container.encode(error, forKey: .error)
        case .summary(let note, let imported, let failed, let bytes):
            try container.encode("summary", forKey: .event)
            try container.encode(note, forKey: .note)
            try container.encode(imported, forKey: .imported)
            try container.encode(failed, forKey: .failed)
            try container.encode(bytes, forKey: .bytes)
        }
    }
}
