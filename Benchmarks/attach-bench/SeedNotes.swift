import ArgumentParser
import AttachmentStore
import Foundation
import TestSupport

extension AttachBench {
    /// `notes`: fills a new store with `count` notes for the listing and search benchmarks of
    /// `scripts/bench-notes.sh`, through the store's sync apply (its one batch write), so
    /// 100,000 notes take seconds, not the hours `attach note add` would.
    ///
    /// Each note has a title, a body of eight words drawn from a 500-word vocabulary (so a
    /// common word is in about 1.6 % of notes), and one minute between changes. The word
    /// `zephyr` is in exactly 20 notes whatever `count` is: a search whose answer does not grow
    /// with the store.
    ///
    /// With `--attachments N`, the first N notes (round robin past `count`) get one attachment
    /// record each: a 4032×3024 JPEG of 3 MB whose bytes are on a peer (a distinct blob per
    /// attachment, recorded remote), what a first sync of a photo library moves.
    struct SeedNotes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "notes", abstract: "Create a store holding COUNT generated notes; print the seconds it took.")
        @Option var store: String
        @Option var count: Int
        @Option(help: "Attachment records to add, one per note in turn.") var attachments = 0

        /// The vocabulary: `w000` … `w499`, prefixed so they are words in both catalogs.
        static let vocabulary = (0..<500).map { String(format: "word%03d", $0) }

        func run() async throws {
            var configuration = AttachmentStore.Configuration()
            configuration.thumbnails.generateAfterImport = false
            let store = try await AttachmentStore.create(at: URL(filePath: store), configuration: configuration)
            let clock = ContinuousClock()
            let started = clock.now
            var generator = SplitMix(seed: 2026)
            let rareEvery = max(1, count / 20)
            let base: Int64 = 1_700_000_000_000
            var index = 0
            while index < count {
                var changes: [SyncChange] = []
                for position in index..<min(count, index + 5_000) {
                    var words = (0..<8).map { _ in Self.vocabulary[Int(generator.next() % 500)] }
                    if position % rareEvery == 0, position / rareEvery < 20 { words[3] = "zephyr" }
                    let milliseconds = base + Int64(position) * 60_000
                    let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
                    let note = Note(id: NoteID(rawValue: String(format: "00000000-0000-4000-8000-%012d", position)),
                                    title: "Note \(position)", body: words.joined(separator: " "), createdAt: date, updatedAt: date)
                    changes.append(.note(.init(note, clock: ClockStamp(rawValue: String(format: "%013lld-000000-bench", milliseconds)))))
                }
                let report = try await store.apply(SyncBatch(peerID: "bench", changes: changes, nextSequence: 0, hasMore: false))
                guard report.invalid == 0 else { throw ValidationError("the store refused generated notes: \(report.problems)") }
                index += changes.count
            }
            try await addAttachments(to: store, base: base)
            report(["seconds": (clock.now - started) / .seconds(1), "notes": Double(count), "attachments": Double(attachments)])
        }

        /// The `--attachments` records, applied 5,000 at a time like the notes.
        private func addAttachments(to store: AttachmentStore, base: Int64) async throws {
            var index = 0
            while index < attachments {
                var changes: [SyncChange] = []
                for number in index..<min(attachments, index + 5_000) {
                    let milliseconds = base + Int64(number) * 60_000 + 30_000
                    let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
                    let attachment = Attachment(
                        id: AttachmentID(rawValue: String(format: "00000000-0000-4000-9000-%012d", number)),
                        noteID: NoteID(rawValue: String(format: "00000000-0000-4000-8000-%012d", number % max(1, count))),
                        position: number / max(1, count), blobHash: BlobHash(rawValue: String(format: "%064llx", number + 1))!,
                        byteCount: 3_000_000, mediaType: "image/jpeg", filename: String(format: "IMG_%05d.jpg", number),
                        image: .init(width: 4032, height: 3024, orientation: 1), metadata: [:],
                        createdAt: date, updatedAt: date, state: .remote)
                    changes.append(.attachment(.init(attachment, clock: ClockStamp(rawValue: String(format: "%013lld-000000-bench", milliseconds)))))
                }
                let report = try await store.apply(SyncBatch(peerID: "bench", changes: changes, nextSequence: 0, hasMore: false))
                guard report.invalid == 0 else { throw ValidationError("the store refused generated attachments: \(report.problems)") }
                index += changes.count
            }
        }
    }
}
