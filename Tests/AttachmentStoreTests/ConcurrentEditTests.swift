import AttachmentStore
import Foundation
import Testing
import TestSupport

/// Two devices edit the same note while apart: after they sync, every line either typed is on
/// both — merged into the note, or kept whole in a conflict copy — and they agree.
@Suite("Concurrent edits merge, and nothing typed is lost", .timeLimit(.minutes(2)))
struct ConcurrentEditTests {
    /// Two stores with one note both hold, written on A as `title`/`body`.
    private static func pair(title: String = "Trip", body: String) async throws -> (StoreFixture, StoreFixture, NoteID) {
        let (a, b) = (try await StoreFixture("a"), try await StoreFixture("b"))
        let note = try await a.store.createNote(title: title, body: body)
        try await SyncCoreTests.pull(b.store, from: a.store)
        return (a, b, note.id)
    }

    /// Both ways, twice (a merge made on one side travels back).
    private static func sync(_ a: AttachmentStore, _ b: AttachmentStore) async throws {
        for _ in 0..<2 {
            try await SyncCoreTests.pull(b, from: a)
            try await SyncCoreTests.pull(a, from: b)
        }
    }

    private static func conflictCopies(in store: AttachmentStore) async throws -> [Note] {
        try await store.notes().filter { $0.title.hasSuffix("(conflict copy)") }
    }

    @Test("edits of different lines merge: both lines on both peers, no conflict copy")
    func differentLinesMerge() async throws {
        let (a, b, id) = try await Self.pair(body: "milk\neggs\nbread")
        _ = try await a.store.updateNote(id, body: "oat milk\neggs\nbread")
        try await Task.sleep(for: .milliseconds(3))
        _ = try await b.store.updateNote(id, body: "milk\neggs\nrye bread")
        try await Self.sync(a.store, b.store)
        for store in [a.store, b.store] {
            #expect(try await store.note(id).body == "oat milk\neggs\nrye bread")
            #expect(try await Self.conflictCopies(in: store).isEmpty)
        }
    }

    @Test("edits of the same line: the newer stays in the note, the older is a conflict copy on both peers, found by search")
    func sameLineKeepsBoth() async throws {
        let (a, b, id) = try await Self.pair(body: "meet at 10\nbring maps")
        _ = try await a.store.updateNote(id, body: "meet at 9\nbring maps")
        try await Task.sleep(for: .milliseconds(3))
        _ = try await b.store.updateNote(id, body: "meet at noon\nbring maps")
        try await Self.sync(a.store, b.store)
        for store in [a.store, b.store] {
            #expect(try await store.note(id).body == "meet at noon\nbring maps")
            let copies = try await Self.conflictCopies(in: store)
            #expect(copies.map(\.body) == ["meet at 9\nbring maps"])
            #expect(copies.map(\.title) == ["Trip (conflict copy)"])
            #expect(try await store.notes(matching: "meet 9").map(\.id) == copies.map(\.id), "the losing text is searchable")
        }
        #expect(try await Self.conflictCopies(in: a.store).map(\.id) == (try await Self.conflictCopies(in: b.store)).map(\.id),
                "one copy, the same on both peers")
    }

    @Test("lines added at the same place on both peers are all kept, the older edit's first; a title changed on one side merges with a body changed on the other")
    func insertionsAndFieldsMerge() async throws {
        let (a, b, id) = try await Self.pair(body: "packing list")
        _ = try await a.store.updateNote(id, body: "packing list\ntent")
        try await Task.sleep(for: .milliseconds(3))
        _ = try await b.store.updateNote(id, title: "Camping", body: "packing list\nstove")
        try await Self.sync(a.store, b.store)
        for store in [a.store, b.store] {
            let note = try await store.note(id)
            #expect(note.title == "Camping")
            #expect(note.body == "packing list\ntent\nstove")
            #expect(try await Self.conflictCopies(in: store).isEmpty)
        }
    }

    @Test("an edit based on the version a peer already has replaces it without a merge; an older version is ignored")
    func fastForward() async throws {
        let (a, b, id) = try await Self.pair(body: "one")
        _ = try await a.store.updateNote(id, body: "one\ntwo")
        try await Self.sync(a.store, b.store)
        _ = try await b.store.updateNote(id, body: "one\ntwo\nthree")
        try await Self.sync(a.store, b.store)
        for store in [a.store, b.store] {
            #expect(try await store.note(id).body == "one\ntwo\nthree")
            #expect(try await Self.conflictCopies(in: store).isEmpty)
        }
    }

    @Test("three peers editing one note at random while apart agree after syncing, and every line anyone typed is somewhere on each",
          arguments: [11, 29, 47])
    func randomizedConvergence(seed: Int) async throws {
        let stores = [try await StoreFixture("p0"), try await StoreFixture("p1"), try await StoreFixture("p2")].map(\.store)
        let id = try await stores[0].createNote(title: "Shared", body: (1...6).map { "line \($0)" }.joined(separator: "\n")).id
        for store in stores.dropFirst() { try await SyncCoreTests.pull(store, from: stores[0]) }
        var random = SplitMix(seed: UInt64(seed))
        var lastRound: Set<String> = []
        for round in 0..<6 {
            for (index, store) in stores.enumerated() {
                var lines = try await store.note(id).body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                let line = "p\(index) r\(round) \(random.next() % 1000)"
                if round == 5 { lastRound.insert(line) }
                switch random.next() % 3 {
                case 0: lines[Int(random.next() % UInt64(lines.count))] = line
                case 1: lines.insert(line, at: Int(random.next() % UInt64(lines.count + 1)))
                default: lines.append(line)
                }
                _ = try await store.updateNote(id, body: lines.joined(separator: "\n"))
                try await Task.sleep(for: .milliseconds(2))
            }
            // A partial sync each round (a ring one way), a full one at the end.
            try await SyncCoreTests.pull(stores[Int(random.next() % 3)], from: stores[round % 3])
        }
        for _ in 0..<3 {
            for to in stores { for from in stores where from !== to { try await SyncCoreTests.pull(to, from: from) } }
        }
        let bodies = try await stores.asyncMap { try await $0.note(id).body }
        #expect(Set(bodies).count == 1, "the peers agree on the note")
        let everything = try await stores.asyncMap { store in try await store.notes().map(\.body).joined(separator: "\n") }
        #expect(Set(everything).count == 1, "and on its conflict copies")
        // The last round's lines were typed apart and replaced by nobody afterwards: each is in
        // the note or a conflict copy, on every peer.
        for line in lastRound {
            #expect(everything[0].contains(line), "\(line) was typed and is nowhere")
        }
    }
}

extension ConcurrentEditTests {
    @Test("a note from a peer of an older release (no versions) is taken or ignored by its clock alone, as before")
    func olderPeerByClock() async throws {
        let fixture = try await StoreFixture("legacy")
        let store = fixture.store
        let note = try await store.createNote(title: "Old peer", body: "here")
        let later = ClockStamp(rawValue: "\(Int64(Date().timeIntervalSince1970 * 1000) + 1000)-000000-old-peer")
        let earlier = ClockStamp(rawValue: "1700000000000-000000-old-peer")
        for (clock, body) in [(earlier, "older, ignored"), (later, "newer, taken")] {
            var changed = note
            changed.body = body
            let batch = SyncBatch(peerID: "old-peer", changes: [.note(.init(changed, clock: clock))], nextSequence: 1, hasMore: false)
            _ = try await store.apply(batch)
        }
        #expect(try await store.note(note.id).body == "newer, taken")
        #expect(try await store.notes().count == 1, "no conflict copy for a peer that cannot say what it merged")
    }
}
