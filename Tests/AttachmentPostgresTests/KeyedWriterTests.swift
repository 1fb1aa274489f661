import AttachmentPostgres
import CatalogSQL
import Dispatch
import Foundation
import Testing

/// `write(locking:_:)` on PostgreSQL: writers of different keys overlap, across catalogs (as two
/// servers would), while writers of the same key and plain writes wait; and the change feed stays
/// in commit order when they overlap.
extension PostgresCatalogTests {
    @Suite("keyed writers")
    struct KeyedWriters {
        /// Two catalogs on one fresh schema, as two servers would have: `body` gets both; the
        /// second is closed and the schema dropped afterwards.
        static func withTwoCatalogs(_ body: (PostgresCatalogDatabase, PostgresCatalogDatabase) async throws -> Void) async throws {
            try await PostgresTestEnvironment.withCatalog { first, schema in
                let second = try await PostgresCatalogDatabase.connect(
                    url: PostgresTestEnvironment.url(schema: schema), logger: PostgresTestEnvironment.logger)
                do {
                    try await body(first, second)
                } catch {
                    await second.close()
                    throw error
                }
                await second.close()
            }
        }

        /// A write transaction (keyed by `keys`, or a plain write when nil) parked inside its body
        /// until ``release()``: it holds its locks and, once entered, has run whatever `before` did.
        final class ParkedWrite: Sendable {
            private let entered = DispatchSemaphore(value: 0)
            private let resume = DispatchSemaphore(value: 0)
            let task: Task<Void, any Error>

            init(_ database: PostgresCatalogDatabase, locking keys: Set<String>?,
                 before: @escaping @Sendable (any SQLTransaction) throws -> Void = { _ in }) {
                let (entered, resume) = (entered, resume)
                let body: @Sendable (any SQLTransaction) throws -> Void = { transaction in
                    try before(transaction)
                    entered.signal()
                    // A transaction thread, not the cooperative pool: blocking here is what a
                    // slow body does. Bounded, so a broken test cannot hang the run.
                    _ = resume.wait(timeout: .now() + 30)
                }
                task = Task {
                    if let keys { try await database.write(locking: keys, body) } else { try await database.write(body) }
                }
            }

            /// Whether the body started within `seconds`.
            func hasEntered(within seconds: Double) async -> Bool {
                let entered = self.entered
                return await Task.detached { entered.wait(timeout: .now() + seconds) == .success }.value
            }

            func release() async throws {
                resume.signal()
                try await task.value
            }
        }

        /// A transaction's completion, observed without waiting for it.
        final class Completion: Sendable {
            private let done = DispatchSemaphore(value: 0)
            let task: Task<Void, any Error>

            init(_ work: @escaping @Sendable () async throws -> Void) {
                let done = done
                task = Task {
                    try await work()
                    done.signal()
                }
            }

            /// Whether it finished within `seconds`; it still counts as finished afterwards.
            func finished(within seconds: Double) async -> Bool {
                let done = self.done
                let finished = await Task.detached { done.wait(timeout: .now() + seconds) == .success }.value
                if finished { done.signal() }
                return finished
            }
        }

        @Test("a writer of another key commits while one holds its key, across two catalogs; the same key and a plain write wait for it")
        func differentKeysOverlapSameKeyWaits() async throws {
            try await Self.withTwoCatalogs { first, second in
                let parked = ParkedWrite(first, locking: ["note:a"])
                #expect(await parked.hasEntered(within: 60))

                let otherKey = Completion {
                    try await second.write(locking: ["note:b"]) { _ = try $0.execute("INSERT INTO storeSetting (key, value) VALUES ('b', '1')") }
                }
                // Before the plain write starts: a plain write that waits holds up keyed writers
                // that come after it (PostgreSQL queues a shared request behind a waiting
                // exclusive one), so started together, note:b could rightly queue behind it.
                #expect(await otherKey.finished(within: 60), "a writer of note:b waited for the holder of note:a")
                let sameKey = Completion {
                    try await second.write(locking: ["note:b", "note:a"]) { _ = try $0.execute("INSERT INTO storeSetting (key, value) VALUES ('a', '1')") }
                }
                let plain = Completion {
                    try await second.write { _ = try $0.execute("INSERT INTO storeSetting (key, value) VALUES ('plain', '1')") }
                }
                #expect(!(await sameKey.finished(within: 0.5)), "a writer of note:a did not wait for its holder")
                #expect(!(await plain.finished(within: 0.5)), "a plain write did not wait for a keyed one")

                try await parked.release()
                #expect(await sameKey.finished(within: 60))
                #expect(await plain.finished(within: 60))
                try await sameKey.task.value
                try await plain.task.value
                let keys = try await first.read { try $0.query("SELECT key FROM storeSetting WHERE key IN ('a', 'b', 'plain') ORDER BY key", []) }
                #expect(try keys.map { try $0.requiredString("key") } == ["a", "b", "plain"])
            }
        }

        @Test("a plain write holds up keyed writers while it runs, so nothing keyed overlaps it")
        func plainWriteExcludesKeyedWriters() async throws {
            try await Self.withTwoCatalogs { first, second in
                let plain = ParkedWrite(first, locking: nil)
                #expect(await plain.hasEntered(within: 60))
                let keyed = Completion { try await second.write(locking: ["note:z"]) { _ in } }
                #expect(!(await keyed.finished(within: 0.5)), "a keyed writer ran beside a plain write")
                try await plain.release()
                #expect(await keyed.finished(within: 60))
                try await keyed.task.value
            }
        }

        @Test("a change committed after a later change was read is drawn after it, so a feed cursor never skips it")
        func feedStaysInCommitOrder() async throws {
            try await Self.withTwoCatalogs { first, second in
                let insertNote = "INSERT INTO note (id, title, body, createdAt, updatedAt, clock) VALUES (?, 't', 'b', ?, ?, 'c')"
                let now = SQLValue.date(Date())
                // The slow writer inserts its note first, then stays open while a quick one commits.
                let slow = ParkedWrite(first, locking: ["note:slow"]) { _ = try $0.execute(insertNote, ["slow", now, now]) }
                #expect(await slow.hasEntered(within: 60))
                try await second.write(locking: ["note:quick"]) { _ = try $0.execute(insertNote, ["quick", now, now]) }

                // A reader catches up to the end of the feed, as a peer's cursor would.
                let cursor = try await second.read { transaction in
                    try transaction.scalar("SELECT max(seq) FROM change WHERE entity = 'note' AND id = 'quick'")
                }
                let cursorSeq = try #require(cursor.flatMap { if case .integer(let seq) = $0 { seq } else { nil } })
                try await slow.release()

                let after = try await first.read { transaction in
                    try transaction.query("SELECT id FROM change WHERE seq > ? ORDER BY seq", [.integer(cursorSeq)])
                        .map { try $0.requiredString("id") }
                }
                #expect(after == ["slow"], "the note committed last must come after the cursor")
            }
        }
    }
}
