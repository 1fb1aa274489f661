import AttachmentStore
import Foundation
import TestSupport

/// Runs the built `attach` executable as a child process.
enum Attach {
    /// The `attach` binary: `$ATTACH_BIN`, else the one built beside this test bundle.
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["ATTACH_BIN"], !path.isEmpty { return path }
        return ChildProcess.sibling("attach")
    }

    /// Runs `attach ARGUMENTS --store STORE` to completion; with `measuringMemory`, its
    /// outcome's peak RSS is its own.
    static func run(_ arguments: [String], store: URL?, environment: [String: String] = [:],
                    measuringMemory: Bool = false) async throws -> ChildProcess.Outcome {
        try await ChildProcess.run(binary, arguments + storeArguments(store), environment: environment, measuringMemory: measuringMemory)
    }

    /// Runs `LAUNCHER... attach ARGUMENTS --store STORE`, for `prlimit` and `setpriv`.
    static func run(through launcher: [String], _ arguments: [String], store: URL?) async throws -> ChildProcess.Outcome {
        try await ChildProcess.run(launcher[0], Array(launcher.dropFirst()) + [binary] + arguments + storeArguments(store))
    }

    /// Starts `attach ARGUMENTS --store STORE` without waiting for it.
    static func start(_ arguments: [String], store: URL) throws -> ChildProcess {
        try ChildProcess(binary, arguments + storeArguments(store))
    }

    /// Creates a store with `attach init`.
    static func initStore(_ store: URL) async throws {
        let outcome = try await run(["init"], store: store)
        guard outcome.exitCode == 0 else { throw Failed(outcome: outcome) }
    }

    /// Creates a note and returns its id.
    static func addNote(_ title: String, store: URL) async throws -> String {
        let outcome = try await run(["note", "add", title], store: store)
        guard outcome.exitCode == 0 else { throw Failed(outcome: outcome) }
        return outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The JSON lines of an `import --json` run whose event is `imported`: file → attachment.
    static func importedLines(_ stdout: String) -> [(file: String, attachment: [String: Any])] {
        stdout.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["event"] as? String == "imported",
                  let file = object["file"] as? String,
                  let attachment = object["attachment"] as? [String: Any] else { return nil }
            return (file, attachment)
        }
    }

    /// What a store looks like from outside: its files (catalog side files excepted) and its records.
    static func snapshot(_ store: URL) async throws -> [String] {
        let files = Files.tree(store).filter { !$0.hasPrefix("catalog.sqlite-") }
        let opened = try await AttachmentStore.open(at: store)
        let notes = try await opened.notes(limit: 10_000).map { "note \($0.id) \($0.title) \($0.updatedAt)" }
        let attachments = try await opened.allAttachments().map { "attachment \($0.id) \($0.blobHash) \($0.position)" }
        return files + notes.sorted() + attachments
    }

    private static func storeArguments(_ store: URL?) -> [String] {
        store.map { ["--store", $0.path(percentEncoded: false)] } ?? []
    }

    /// A child that did not exit 0 when it had to.
    struct Failed: Error, CustomStringConvertible {
        let outcome: ChildProcess.Outcome
        var description: String { "attach exited \(outcome.exitCode.map(String.init) ?? "by signal"): \(outcome.stderr)" }
    }
}
